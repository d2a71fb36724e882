/** The shape of a table definition, apart from the tables so that each table's module can use it. */

/** A table's shape: its local name, its partition key and, where items expire, its TTL attribute. */
export interface TableDefinition {
  /** The name on the local engine; in AWS the stack names tables and passes the names in. */
  readonly localName: string;
  /** The environment variable that gives a function the table's real name. */
  readonly environmentVariable: string;
  readonly partitionKey: { readonly name: string; readonly type: 'S' | 'N' };
  readonly timeToLiveAttribute?: string;
  /** What the table's stream carries, when it has one (the plants table feeds the webhook). */
  readonly streamViewType?: 'NEW_IMAGE';
}
