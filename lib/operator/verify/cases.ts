/**
 * The black-box cases, defined once: `npm run verify` runs them against any base URL, and the
 * e2e suite (test/operator/e2e/verify.test.ts) against the local runtime. Each name says what
 * holds; the report, JUnit and the skips name a case by it.
 */
import { CHANGE_CASES } from './cases/change';
import { CREATE_CASES } from './cases/create';
import { GATEWAY_CASES } from './cases/gateway';
import { READ_CASES } from './cases/read';
import { WEBHOOK_CASES } from './cases/webhook';
import type { VerifyCase } from './context';
import { SCOPE_CASES } from './scopes';

export const VERIFY_CASES: readonly VerifyCase[] = [
  ...GATEWAY_CASES,
  ...SCOPE_CASES,
  ...CREATE_CASES,
  ...READ_CASES,
  ...CHANGE_CASES,
  ...WEBHOOK_CASES,
];
