/**
 * Fixed source addresses (`-c webhookStaticIps=true`): the functions that reach outside AWS run
 * in private subnets whose only way out is a NAT gateway with an Elastic IP of the stack, the
 * addresses are an output, and the default deploy has no VPC at all. Synthesized as `cdk synth`
 * does (lib/infra/app.ts, cdk.json's context), bundling skipped; deploy-validation.test.ts runs
 * CloudFormation's validation and cdk-nag on both.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, FUNCTION_NAMES } from '../../lib/definitions/functions';
import { addPlantStore } from '../../lib/infra/app';
import { testApp } from '../support/cdk-app';

function synth(context: Record<string, string>): Template {
  const app = testApp(context);
  const stack = addPlantStore(app);
  app.synth();
  return Template.fromStack(stack);
}

/** The logical id of each registry function's `AWS::Lambda::Function`. */
function functionIds(template: Template): Record<string, string> {
  const ids = Object.keys(template.findResources('AWS::Lambda::Function'));
  return Object.fromEntries(
    FUNCTION_NAMES.map((name) => [
      name,
      ids.find((id) => new RegExp(`^${FUNCTIONS[name].id}Function[0-9A-F]{8}$`).test(id))!,
    ]),
  );
}

const reachOutside = FUNCTION_NAMES.filter((name) => FUNCTIONS[name].reachesOutside);

it('the registry says which functions reach outside AWS: the deliverer', () => {
  expect(reachOutside).toEqual(['deliver']);
});

describe.each<Record<string, string>>([{}, { webhookStaticIps: 'false' }])(
  'by default (%p)',
  (context) => {
    const template = synth(context);

    it('has no VPC, NAT gateway, address or VPC-bound function', () => {
      for (const type of ['AWS::EC2::VPC', 'AWS::EC2::NatGateway', 'AWS::EC2::EIP']) {
        template.resourceCountIs(type, 0);
      }
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
        expect(fn.Properties.VpcConfig).toBeUndefined();
      }
      expect(template.findOutputs('WebhookSourceAddresses')).toEqual({});
    });
  },
);

describe('with -c webhookStaticIps=true', () => {
  const template = synth({ webhookStaticIps: 'true' });
  const eips = Object.keys(template.findResources('AWS::EC2::EIP'));
  const subnets = template.findResources('AWS::EC2::Subnet');
  const subnetIds = (publicIp: boolean) =>
    Object.keys(subnets).filter((id) => subnets[id].Properties.MapPublicIpOnLaunch === publicIp);

  it('gives each of two zones a NAT gateway sending from an Elastic IP of the stack', () => {
    expect(eips).toHaveLength(2);
    const nats = Object.values(template.findResources('AWS::EC2::NatGateway'));
    expect(nats.map((nat) => nat.Properties.AllocationId).sort()).toEqual(
      eips.map((id) => ({ 'Fn::GetAtt': [id, 'AllocationId'] })).sort(),
    );
    // Each NAT in a public subnet; two distinct zones.
    for (const nat of nats) expect(subnetIds(true)).toContain(nat.Properties.SubnetId.Ref);
    const zones = subnetIds(false).map((id) =>
      JSON.stringify(subnets[id].Properties.AvailabilityZone),
    );
    expect(new Set(zones).size).toBe(2);
  });

  it('routes the private subnets to the internet only through their NAT gateway', () => {
    const routes = Object.values(template.findResources('AWS::EC2::Route'));
    const tableOf = (subnetId: string) =>
      Object.values(template.findResources('AWS::EC2::SubnetRouteTableAssociation')).find(
        (a) => a.Properties.SubnetId.Ref === subnetId,
      )!.Properties.RouteTableId.Ref as string;
    for (const subnetId of subnetIds(false)) {
      const own = routes.filter((r) => r.Properties.RouteTableId.Ref === tableOf(subnetId));
      expect(own.map((r) => Object.keys(r.Properties).sort())).toEqual([
        ['DestinationCidrBlock', 'NatGatewayId', 'RouteTableId'],
      ]);
      expect(own[0].Properties.DestinationCidrBlock).toBe('0.0.0.0/0');
    }
  });

  it('puts exactly the functions that reach outside in the private subnets', () => {
    const ids = functionIds(template);
    const functions = template.findResources('AWS::Lambda::Function');
    for (const name of FUNCTION_NAMES) {
      const vpcConfig = functions[ids[name]].Properties.VpcConfig;
      if (!reachOutside.includes(name)) {
        expect(vpcConfig).toBeUndefined();
        continue;
      }
      expect(vpcConfig.SubnetIds.map((s: { Ref: string }) => s.Ref).sort()).toEqual(
        subnetIds(false).sort(),
      );
      expect(vpcConfig.SecurityGroupIds).toHaveLength(1);
    }
  });

  it("lets Lambda manage the deliverer's network interfaces, and nothing more", () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('^DeliverRole') }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: [
              'ec2:AssignPrivateIpAddresses',
              'ec2:CreateNetworkInterface',
              'ec2:DeleteNetworkInterface',
              'ec2:DescribeNetworkInterfaces',
              'ec2:DescribeSubnets',
              'ec2:UnassignPrivateIpAddresses',
            ],
            Resource: '*',
          },
        ]),
      },
    });
    // No managed policy (AWSLambdaVPCAccessExecutionRole would allow logging anywhere).
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns ?? [])).not.toContain(
        'AWSLambdaVPCAccessExecutionRole',
      );
    }
  });

  it('reaches DynamoDB through a gateway endpoint (no NAT charge for the store)', () => {
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith(['.dynamodb'])] }),
    });
  });

  it('lists the addresses in the WebhookSourceAddresses output', () => {
    const outputs = template.findOutputs('WebhookSourceAddresses');
    expect(outputs.WebhookSourceAddresses.Value).toEqual({
      'Fn::Join': [',', eips.map((id) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }))],
    });
  });

  it('logs the traffic the VPC rejects', () => {
    template.hasResourceProperties('AWS::EC2::FlowLog', {
      ResourceType: 'VPC',
      TrafficType: 'REJECT',
      LogDestinationType: 'cloud-watch-logs',
    });
  });
});
