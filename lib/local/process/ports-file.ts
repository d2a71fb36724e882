/**
 * `<dataDir>/ports.json`: where a running `npm start` (or `npm run db`) listens, so that the
 * CLIs in another terminal find it on whatever ports it was given. Written once it listens
 * (0600), removed when it stops; a file left by a process that is gone is ignored.
 */
import { readFileSync } from 'node:fs';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from './data-lock';

/** What the file records. */
export interface RecordedPorts {
  readonly pid: number;
  /** The engine's port (DynamoDB and the webhook queues). */
  readonly dbPort: number;
  /** The API's URL, when `npm start` (not `npm run db`) wrote it. */
  readonly url?: string;
}

/** The file's path in `dataDir`. */
export function portsFile(dataDir: string): string {
  return join(dataDir, 'ports.json');
}

/** Records this process's ports; resolves with the function that removes the record. */
export async function recordPorts(
  dataDir: string,
  ports: Omit<RecordedPorts, 'pid'>,
): Promise<() => Promise<void>> {
  const file = portsFile(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ pid: process.pid, ...ports })}\n`, {
    mode: 0o600,
  });
  await rename(temporary, file);
  return async () => {
    const recorded = await readFile(file, 'utf8').catch(() => '');
    if (parse(recorded)?.pid === process.pid) await unlink(file).catch(() => undefined);
  };
}

/** The ports a live process recorded in `dataDir`, if any. */
export function readRecordedPorts(dataDir: string): RecordedPorts | undefined {
  let text: string;
  try {
    text = readFileSync(portsFile(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  const ports = parse(text);
  return ports && isAlive(ports.pid) ? ports : undefined;
}

function parse(text: string): RecordedPorts | undefined {
  try {
    const value = JSON.parse(text) as Partial<RecordedPorts>;
    const port = (n: unknown) => Number.isInteger(n) && (n as number) > 0 && (n as number) < 65536;
    if (!Number.isInteger(value.pid) || !port(value.dbPort)) return undefined;
    return value as RecordedPorts;
  } catch {
    return undefined;
  }
}
