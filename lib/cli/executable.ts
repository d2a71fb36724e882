/** Finding a program as a shell would, for the child processes the runtime and the bench start. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The first executable `name` (`name.exe` on Windows) in `dirs`, which default to PATH's, or
 * undefined; `skip` leaves out directories (an npm run's `node_modules/.bin`, say).
 */
export function findExecutable(
  name: string,
  dirs: readonly string[] = (process.env.PATH ?? '').split(delimiter),
  skip: (dir: string) => boolean = () => false,
): string | undefined {
  for (const dir of dirs) {
    if (!dir || skip(dir)) continue;
    const candidate = join(dir, process.platform === 'win32' ? `${name}.exe` : name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
