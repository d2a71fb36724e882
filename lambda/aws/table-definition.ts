/** The shape of a table definition, apart from the tables so that each table's module can use it. */

/** A key attribute: its name and DynamoDB type. */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

/**
 * A global secondary index: its name (IAM names it `<table ARN>/index/<name>`), its partition and
 * sort keys. Every index projects ALL attributes: an answer needs the plant's members, and a field
 * added later is then in the index without rebuilding it.
 */
export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
}

/** A table's shape: its local name, its partition key and, where items expire, its TTL attribute. */
export interface TableDefinition {
  /** The name on the local engine; in AWS the stack names tables and passes the names in. */
  readonly localName: string;
  /** The environment variable that gives a function the table's real name. */
  readonly environmentVariable: string;
  readonly partitionKey: KeyAttribute;
  readonly timeToLiveAttribute?: string;
  /**
   * Its global secondary indexes. CloudFormation and DynamoDB create or delete at most one per
   * table update, so a release adds or removes at most one (the upgrade test checks it).
   * @default - none
   */
  readonly indexes?: readonly IndexDefinition[];
  /** What the table's stream carries, when it has one (the plants table feeds the webhook). */
  readonly streamViewType?: 'NEW_IMAGE';
}

/**
 * The IAM actions each public method of a resource's module calls (a table's, a queue's, a
 * key's): a function given a method is granted exactly these. Every method must say, so a new one
 * cannot be called without its actions being granted.
 */
export type MethodActions<Module> = {
  readonly [
    Method in keyof Module as Module[Method] extends (...args: never[]) => unknown ? Method : never
  ]: readonly string[];
};

/**
 * `Store` narrowed to the methods a function is given (its folder's `grants.ts`, which the
 * registry reads): calling any other method of the store fails to compile, so the code cannot
 * call what the function's role does not allow. `Methods` may name methods of several modules
 * that reach the same resource: each module keeps its own.
 */
export type Narrow<Store, Methods extends readonly string[]> = Pick<
  Store,
  Extract<Methods[number], keyof Store>
>;
