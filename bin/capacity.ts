/** `npm run capacity`: prints docs/capacity.md's tables, computed from `lib/generators/capacity/`. */
import { capacityTables } from '../lib/generators/capacity/tables';

process.stdout.write(`${capacityTables()}\n`);
