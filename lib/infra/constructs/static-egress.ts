/**
 * Fixed source addresses for requests to the outside world (the webhook's receivers, which may
 * allow-list us): a VPC whose private subnets reach the internet only through NAT gateways, one
 * per Availability Zone, each with an Elastic IP allocated here. The addresses stay as long as
 * these EIP resources do. The subnets reach DynamoDB through a gateway endpoint (free, and its
 * traffic then pays no NAT processing); the other AWS APIs (SQS, KMS) go through the NAT.
 */
import { CfnResource, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  CfnEIP,
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  IpAddresses,
  NatProvider,
  SubnetType,
  Vpc,
  type SubnetSelection,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Settings of the egress VPC. */
export interface StaticEgressProps {
  /**
   * Availability Zones, each with its own NAT gateway and address: with two, one zone's outage
   * leaves the functions running in the other, still behind an address receivers know.
   * @default 2
   */
  readonly zones?: number;
  /**
   * How long the VPC flow log (rejected traffic only) keeps its events.
   * @default RetentionDays.ONE_MONTH
   */
  readonly flowLogRetention?: RetentionDays;
}

/** A VPC with NAT egress from Elastic IPs; `addresses` are what receivers allow-list. */
export class StaticEgress extends Construct {
  readonly vpc: Vpc;
  /** Where functions go: the private subnets, whose default route is their zone's NAT. */
  readonly subnets: SubnetSelection = { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
  /** The public IPv4 addresses every outgoing connection comes from (tokens until deployed). */
  readonly addresses: string[];

  constructor(scope: Construct, id: string, props: StaticEgressProps = {}) {
    super(scope, id);
    const zones = props.zones ?? 2;
    if (!(Number.isInteger(zones) && zones >= 1 && zones <= 6)) {
      throw new Error(`zones must be an integer from 1 to 6, got ${zones}`);
    }
    // Allocated here rather than by the VPC so that the template names them (and the output
    // lists them); a NAT gateway replaced later keeps its zone's address.
    const eips = Array.from(
      { length: zones },
      (_, i) => new CfnEIP(this, `Address${i + 1}`, { domain: 'vpc' }),
    );
    this.addresses = eips.map((eip) => eip.attrPublicIp);
    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: props.flowLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.vpc = new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr('10.0.0.0/16'),
      maxAzs: zones,
      natGateways: zones,
      natGatewayProvider: NatProvider.gateway({
        eipAllocationIds: eips.map((eip) => eip.attrAllocationId),
      }),
      subnetConfiguration: [
        { name: 'Public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'Egress', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
      ],
      gatewayEndpoints: {
        DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB },
      },
      // Rejected traffic only: the deliver function logs every attempt; what the VPC refused
      // is the one thing its own log cannot say.
      flowLogs: {
        Rejected: {
          destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
          trafficType: FlowLogTrafficType.REJECT,
        },
      },
    });
    this.dropRedundantDependency();
  }

  /**
   * The VPC empties its default security group (nothing may use it) through a CDK custom
   * resource, whose handler both reads its role's ARN and depends on the role: CloudFormation
   * validation reports the second as redundant (W3005). The role holds its policy inline, so
   * the `GetAtt` alone orders them.
   */
  private dropRedundantDependency(): void {
    const provider = Stack.of(this).node.tryFindChild(
      'Custom::VpcRestrictDefaultSGCustomResourceProvider',
    );
    const handler = provider?.node.tryFindChild('Handler') as CfnResource | undefined;
    handler?.addOverride('DependsOn', undefined);
  }
}
