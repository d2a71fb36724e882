/**
 * What a DynamoDB request asks of IAM: `dynamodb:<Operation>` on the tables (and index) its body
 * names, as DynamoDB authorizes it; the access gate judges it before the engine reads it.
 */
import type { Described, GatedService } from '../iam/gate';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../iam/identities';

/** The local ARN of the table `name`. */
export function localTableArn(name: string): string {
  return `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT}:table/${name}`;
}

/** DynamoDB's operations behind the gate. */
export const DYNAMODB_ACCESS: GatedService = {
  service: 'dynamodb',
  targetPrefix: 'DynamoDB_20120810.',
  describe(operation, raw): Described | undefined {
    const input = (raw ?? {}) as {
      TableName?: unknown;
      IndexName?: unknown;
      RequestItems?: unknown;
    };
    const action = `dynamodb:${operation}`;
    if (typeof input.TableName === 'string') {
      const table = localTableArn(input.TableName);
      const arn = typeof input.IndexName === 'string' ? `${table}/index/${input.IndexName}` : table;
      return { action, resources: [{ arn }] };
    }
    if (input.RequestItems && typeof input.RequestItems === 'object') {
      const tables = Object.keys(input.RequestItems);
      return { action, resources: tables.map((name) => ({ arn: localTableArn(name) })) };
    }
    // ListTables and the transactions' wrappers name no single table.
    return { action, resources: [{ arn: '*' }] };
  },
};
