/** The SNS topic that alarm notifications are emailed through, on a key CloudWatch may use. */
import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** What the alarm topic needs. */
export interface AlarmTopicProps {
  /** Address that alarm notifications are emailed to. */
  readonly email: string;
  /**
   * What becomes of the key when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly keyRemovalPolicy?: RemovalPolicy;
}

/**
 * An SNS topic that CloudWatch alarms can actually publish to: encrypted with a customer-managed
 * KMS key (rotated yearly) whose policy lets `cloudwatch.amazonaws.com` use it for this account's
 * alarms. The AWS-managed `alias/aws/sns` cannot do this: its policy cannot be changed to admit
 * CloudWatch, so every notification would be dropped (docs/decisions/0008-customer-managed-key-for-alarms.md).
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Plant Store alarm notifications (SNS topic encryption)',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: props.keyRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // The confused-deputy guard: only alarms of this account and region may use the key or
    // publish, never CloudWatch acting for another account.
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      ArnLike: {
        'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
      },
    };
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOurAlarms,
      }),
    );
    this.topic = new Topic(this, 'Topic', { enforceSSL: true, masterKey: this.key });
    // enforceSSL writes a topic policy, which replaces SNS's default one: CloudWatch needs its
    // own allow to publish.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurAlarms,
      }),
    );
    this.topic.addSubscription(new EmailSubscription(props.email));
  }
}
