/** The readable local log line made from a function's JSON output. */
import { formatLogLine, functionLog } from '../../../lib/local/dev/log-format';

const info = JSON.stringify({
  level: 'INFO',
  message: 'created',
  timestamp: '2026-01-01T00:00:00.000Z',
  service: 'create-plant',
  cold_start: true,
  function_request_id: 'abc',
  sampling_rate: 0,
  requestId: 'req-1',
  tokenId: 'tok_dev',
  plantId: '42',
});
const emf = JSON.stringify({
  _aws: {
    Timestamp: 1,
    CloudWatchMetrics: [
      { Namespace: 'PlantStore', Dimensions: [['service']], Metrics: [{ Name: 'PlantsCreated' }] },
    ],
  },
  service: 'create-plant',
  PlantsCreated: 1,
});

it('shortens a Powertools line to level, outcome, ids and request', () => {
  expect(formatLogLine('create-plant', info)).toBe(
    '[create-plant] INFO created id=42 (caller tok_dev, req req-1)',
  );
});

it('shows the rule, the reason and unknown fields, and an error with its stack', () => {
  const denied = JSON.stringify({ level: 'INFO', message: 'denied', reason: 'unknown', extra: 1 });
  expect(formatLogLine('authorizer', denied)).toBe(
    '[authorizer] INFO denied reason=unknown extra=1',
  );
  const invalid = JSON.stringify({ level: 'INFO', message: 'invalid', rule: 'name: required' });
  expect(formatLogLine('create-plant', invalid)).toBe(
    '[create-plant] INFO invalid rule=name: required',
  );
  const failed = JSON.stringify({
    level: 'ERROR',
    message: 'error',
    requestId: 'r',
    error: { name: 'TypeError', message: 'boom', stack: 'TypeError: boom\n    at f (x.js:1:1)' },
  });
  expect(formatLogLine('create-plant', failed)).toBe(
    '[create-plant] ERROR error (req r) error=TypeError: boom\n    at f (x.js:1:1)',
  );
});

it('hides EMF lines unless asked, then shows them compactly', () => {
  expect(formatLogLine('create-plant', emf)).toBeUndefined();
  expect(formatLogLine('create-plant', emf, { metrics: true })).toBe(
    '[create-plant] metrics PlantsCreated=1',
  );
});

it('passes anything else through, prefixed', () => {
  expect(formatLogLine('authorizer', 'init failed: x')).toBe('[authorizer] init failed: x');
  expect(formatLogLine('authorizer', '{not json')).toBe('[authorizer] {not json');
  expect(formatLogLine('authorizer', '{"a":1}')).toBe('[authorizer] {"a":1}');
});

it('functionLog drops hidden lines and reads PLANT_STORE_SHOW_METRICS', () => {
  const lines: string[] = [];
  functionLog('create-plant', (line) => lines.push(line), {})(emf);
  functionLog('create-plant', (line) => lines.push(line), { PLANT_STORE_SHOW_METRICS: '1' })(emf);
  expect(lines).toEqual(['[create-plant] metrics PlantsCreated=1']);
});

it('shows a retry delay with the delay the local queue waits under PLANT_STORE_WEBHOOK_RETRY_SCALE', () => {
  const retry = JSON.stringify({
    level: 'WARN',
    message: 'failed',
    subscriberId: 'sub_1',
    retryAfterSeconds: 30,
  });
  expect(formatLogLine('deliver', retry)).toBe(
    '[deliver] WARN failed subscriberId=sub_1 retryAfterSeconds=30',
  );
  const lines: string[] = [];
  functionLog('deliver', (line) => lines.push(line), {}, 0.01)(retry);
  expect(lines).toEqual([
    '[deliver] WARN failed subscriberId=sub_1 retryAfterSeconds=30 (scaled: 0.3 s)',
  ]);
});
