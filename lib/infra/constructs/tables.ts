/** The DynamoDB tables, each from its shared definition, kept whatever happens to the stack. */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  type CfnTable,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { TableDefinition } from '../../../lambda/aws/tables';
import type { KeyAttribute } from '../../../lambda/aws/table-definition';

/** A key attribute as CDK takes it. */
function attribute(key: KeyAttribute) {
  return { name: key.name, type: key.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING };
}

/** The tables to create. */
export interface TablesProps<K extends string> {
  /** Each table's definition, by the key the registry uses; the key is the table's construct id. */
  readonly definitions: Readonly<Record<K, TableDefinition>>;
  /**
   * CloudFormation logical ids to keep, by key. A table whose logical id changes is replaced
   * and its data lost, so a table created before it moved into this construct keeps its id here.
   * @default - the ids CDK derives from the construct path
   */
  readonly logicalIds?: Readonly<Partial<Record<K, string>>>;
}

/** One on-demand table per definition, with point-in-time recovery and deletion protection. */
export class Tables<K extends string> extends Construct {
  /** The tables, by key. */
  readonly byKey: Readonly<Record<K, Table>>;

  constructor(scope: Construct, id: string, props: TablesProps<K>) {
    super(scope, id);
    const entries = Object.entries(props.definitions) as [K, TableDefinition][];
    this.byKey = Object.fromEntries(
      entries.map(([key, definition]) => {
        const table = new Table(this, key, {
          partitionKey: attribute(definition.partitionKey),
          billingMode: BillingMode.PAY_PER_REQUEST,
          pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
          deletionProtection: true,
          removalPolicy: RemovalPolicy.RETAIN,
          timeToLiveAttribute: definition.timeToLiveAttribute,
          stream: definition.streamViewType && StreamViewType[definition.streamViewType],
        });
        // Added to a released table, an index is an in-place update (the upgrade test checks it).
        for (const index of definition.indexes ?? []) {
          table.addGlobalSecondaryIndex({
            indexName: index.name,
            partitionKey: attribute(index.partitionKey),
            sortKey: attribute(index.sortKey),
            projectionType: ProjectionType.ALL,
          });
        }
        const logicalId = props.logicalIds?.[key];
        if (logicalId) (table.node.defaultChild as CfnTable).overrideLogicalId(logicalId);
        return [key, table];
      }),
    ) as Record<K, Table>;
  }
}
