/** `npm run capacity`: prints docs/capacity.md's tables, computed from `lib/tools/capacity/`. */
import { capacityTables } from '../lib/tools/capacity/tables';

process.stdout.write(`${capacityTables()}\n`);
