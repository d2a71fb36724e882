/**
 * What to give a function whose call IAM denied: the methods of the resource's modules that call
 * the denied action, and the `grants.ts` that gives them (the function's folder's, which the
 * registry reads). `npm start` prints it under the denial, and the local console shows the same.
 */
import { TABLES_BY_KEY } from '../../definitions/functions';
import { LOCAL_QUEUE_NAMES } from '../names';
import {
  KEY_METHODS,
  QUEUE_METHODS,
  TABLE_INDEX_METHODS,
  TABLE_METHODS,
  type TableKey,
} from '../../definitions/resources';
import { localTableArn } from '../dynamodb/access';
import { localQueueArn } from '../sqs/access';

/** One denied call: who, which action, on which resource. */
export interface Denial {
  readonly functionName: string;
  readonly action: string;
  readonly resource: string;
}

/** The methods of `catalog` that call `action`, and where the registry lists them. */
function methodsCalling(
  catalog: Readonly<Record<string, readonly string[]>>,
  action: string,
  keep: (method: string) => boolean = () => true,
): string[] {
  return Object.entries(catalog)
    .filter(([method, actions]) => actions.includes(action) && keep(method))
    .map(([method]) => method);
}

/** `<methods> to <where>` for a denial, or `undefined` when no module's method calls it. */
function grantFor({ action, resource }: Denial): { methods: string[]; where: string } | undefined {
  for (const key of Object.keys(TABLES_BY_KEY) as TableKey[]) {
    const table = localTableArn(TABLES_BY_KEY[key].localName);
    if (resource !== table && !resource.startsWith(`${table}/index/`)) continue;
    const index = resource === table ? undefined : resource.slice(`${table}/index/`.length);
    const onIndex: Readonly<Record<string, string | undefined>> = TABLE_INDEX_METHODS[key] ?? {};
    const catalog: Readonly<Record<string, readonly string[]>> = TABLE_METHODS[key];
    const methods = methodsCalling(catalog, action, (method) => onIndex[method] === index);
    return { methods, where: `tables.${key}` };
  }
  for (const key of Object.keys(QUEUE_METHODS) as (keyof typeof QUEUE_METHODS)[]) {
    if (resource !== localQueueArn(LOCAL_QUEUE_NAMES[key])) continue;
    return { methods: methodsCalling(QUEUE_METHODS[key], action), where: `queues.${key}` };
  }
  if (/^arn:aws:kms:[^:]*:\d*:key\//.test(resource)) {
    return { methods: methodsCalling(KEY_METHODS.secrets, action), where: 'keys.secrets' };
  }
  return undefined;
}

/**
 * The line that says how to allow a denied call: `to allow it, add 'put' to tables.plants in
 * lambda/get-plant/grants.ts`, or why no grant would.
 */
export function grantHint(denial: Denial): string {
  const grant = grantFor(denial);
  const file = `lambda/${denial.functionName}/grants.ts`;
  if (!grant || grant.methods.length === 0) {
    return `no method of the modules that reach ${denial.resource} calls ${denial.action}: a grant in ${file} cannot allow it`;
  }
  const methods = grant.methods.map((m) => `'${m}'`).join(' or ');
  return `to allow it, add ${methods} to ${grant.where} in ${file}`;
}
