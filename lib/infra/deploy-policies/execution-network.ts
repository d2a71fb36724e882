/**
 * What CloudFormation does to the static egress's network (`-c webhookStaticIps=true`: a VPC,
 * its subnets, gateways, endpoints and flow log), on the stage's pieces only: a new piece must
 * carry the stage's tag, an existing one is used, changed or deleted only if it carries it. A
 * stage without the static egress makes no network: its policy refuses EC2's creates.
 */
import type { ResourceGrants } from './execution-data';
import { arn, tagged, taggedOnCreate, type Grant } from './grants';

/** Each EC2 call that makes a piece of the static egress's network, and the piece's ARN type. */
const EC2_CREATES: Readonly<Record<string, string>> = {
  'ec2:CreateVpc': 'vpc',
  'ec2:CreateSubnet': 'subnet',
  'ec2:CreateRouteTable': 'route-table',
  'ec2:CreateInternetGateway': 'internet-gateway',
  'ec2:CreateNatGateway': 'natgateway',
  'ec2:AllocateAddress': 'elastic-ip',
  'ec2:CreateVpcEndpoint': 'vpc-endpoint',
  'ec2:CreateSecurityGroup': 'security-group',
  'ec2:CreateFlowLogs': 'vpc-flow-log',
};

/**
 * The one create CloudFormation sends without the piece's tags, tagging it after
 * (`AWS::EC2::SecurityGroup`).
 */
const TAGGED_AFTER = 'ec2:CreateSecurityGroup';

/** The network resource types of the static egress, and what CloudFormation does to them. */
export const NETWORK_GRANTS: readonly ResourceGrants[] = [
  {
    types: [
      'AWS::EC2::VPC',
      'AWS::EC2::Subnet',
      'AWS::EC2::RouteTable',
      'AWS::EC2::SubnetRouteTableAssociation',
      'AWS::EC2::Route',
      'AWS::EC2::InternetGateway',
      'AWS::EC2::VPCGatewayAttachment',
      'AWS::EC2::NatGateway',
      'AWS::EC2::EIP',
      'AWS::EC2::VPCEndpoint',
      'AWS::EC2::SecurityGroup',
      'AWS::EC2::FlowLog',
      'Custom::VpcRestrictDefaultSG',
    ],
    staticEgress: true,
    grants: (s): Grant[] => [
      {
        // Describe calls take no resource.
        actions: [
          'ec2:DescribeVpcs',
          'ec2:DescribeSubnets',
          'ec2:DescribeRouteTables',
          'ec2:DescribeInternetGateways',
          'ec2:DescribeNatGateways',
          'ec2:DescribeAddresses',
          'ec2:DescribeVpcEndpoints',
          'ec2:DescribeSecurityGroups',
          'ec2:DescribeSecurityGroupRules',
          'ec2:DescribeFlowLogs',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DescribeAvailabilityZones',
          'ec2:DescribeAccountAttributes',
          'ec2:DescribePrefixLists',
        ],
        resources: ['*'],
      },
      ...Object.entries(EC2_CREATES)
        .filter(([action]) => action !== TAGGED_AFTER)
        .map(([action, type]) => ({
          // A new piece must carry the stage's tag...
          actions: [action],
          resources: [arn(s, 'ec2', `${type}/*`)],
          conditions: taggedOnCreate(s),
        })),
      {
        // ...given by the call that creates it...
        actions: ['ec2:CreateTags'],
        resources: Object.values(EC2_CREATES).map((type) => arn(s, 'ec2', `${type}/*`)),
        conditions: {
          StringEquals: taggedOnCreate(s).StringEquals,
          Null: { ...taggedOnCreate(s).Null, 'ec2:CreateAction': 'false' },
        },
      },
      {
        // ...except a security group: CloudFormation creates it untagged (in the stage's VPC,
        // which the statement below requires tagged), then tags it, once, with the stage's tag.
        actions: [TAGGED_AFTER],
        resources: [arn(s, 'ec2', `${EC2_CREATES[TAGGED_AFTER]}/*`)],
      },
      {
        actions: ['ec2:CreateTags'],
        resources: [arn(s, 'ec2', `${EC2_CREATES[TAGGED_AFTER]}/*`)],
        conditions: taggedOnCreate(s),
      },
      {
        // ...and an existing one (the VPC a subnet goes in, a route table, a gateway) is used,
        // changed or deleted only if it carries it: never one EC2 made untagged (a VPC's default
        // security group is emptied by the stack's own custom resource, under the workload
        // boundary), never another stage's or application's.
        actions: [
          'ec2:CreateSubnet',
          'ec2:CreateRouteTable',
          'ec2:CreateNatGateway',
          'ec2:CreateVpcEndpoint',
          'ec2:CreateSecurityGroup',
          'ec2:CreateFlowLogs',
          'ec2:DeleteVpc',
          'ec2:ModifyVpcAttribute',
          'ec2:DeleteSubnet',
          'ec2:ModifySubnetAttribute',
          'ec2:DeleteRouteTable',
          'ec2:AssociateRouteTable',
          'ec2:DisassociateRouteTable',
          'ec2:CreateRoute',
          'ec2:ReplaceRoute',
          'ec2:DeleteRoute',
          'ec2:DeleteInternetGateway',
          'ec2:AttachInternetGateway',
          'ec2:DetachInternetGateway',
          'ec2:DeleteNatGateway',
          'ec2:ReleaseAddress',
          'ec2:DisassociateAddress',
          'ec2:ModifyVpcEndpoint',
          'ec2:DeleteVpcEndpoints',
          'ec2:DeleteSecurityGroup',
          'ec2:AuthorizeSecurityGroupEgress',
          'ec2:AuthorizeSecurityGroupIngress',
          'ec2:RevokeSecurityGroupEgress',
          'ec2:RevokeSecurityGroupIngress',
          'ec2:DeleteFlowLogs',
          'ec2:CreateTags',
          'ec2:DeleteTags',
        ],
        resources: ['*'],
        conditions: tagged(s),
      },
    ],
  },
];

/** The network policy of a stage without the static egress: it makes no network. */
export const NO_NETWORK: readonly Grant[] = [
  { effect: 'Deny', actions: Object.keys(EC2_CREATES), resources: ['*'] },
];
