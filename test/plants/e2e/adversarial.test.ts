/**
 * The adversarial corpus over HTTP through the local runtime (the deployed bundles behind the
 * emulated gateway, as `npm start` runs them): every body gets the same answer as in-process,
 * and a bystander's request sent while the corpus is in flight is answered too.
 */
import { ADVERSARIAL_BODIES } from '../../support/adversarial-bodies';
import { useLocalService } from '../../support/local-service';

const service = useLocalService('adversarial');

/**
 * POSTs `body`. The function's 503 (the engine, in this process, starved by the burst's sandboxes
 * on a busy machine) is retried after its `Retry-After`, as the contract tells a client to (a
 * create is safe to repeat), a few times at most; any other answer, the gateway's own 503
 * included, is the answer.
 */
async function post(body: string) {
  for (let tries = 1; ; tries++) {
    const response = await fetch(`${service.url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${service.devToken}`,
        'content-type': 'application/json',
      },
      body,
    });
    const json = (await response.json()) as Record<string, unknown>;
    const retryAfter = Number(response.headers.get('retry-after'));
    if (json.error !== 503 || !(retryAfter > 0) || tries === 5) {
      return { status: response.status, json };
    }
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
}

it('answers every body as the contract says, and a bystander meanwhile', async () => {
  const answers = ADVERSARIAL_BODIES.map(async (corpus) => ({
    corpus,
    answer: await post(corpus.body),
  }));
  const bystander = await post('{"id":424242,"name":"bystander"}');
  expect(bystander).toEqual({ status: 200, json: { name: 'bystander' } });
  for (const { corpus, answer } of await Promise.all(answers)) {
    if (corpus.status === 200) {
      const { name, tag } = corpus.plant;
      const plant = tag === undefined ? { name } : { name, tag };
      expect([corpus.name, answer]).toEqual([corpus.name, { status: 200, json: plant }]);
    } else {
      expect([corpus.name, answer.status, answer.json.error]).toEqual([
        corpus.name,
        corpus.status,
        corpus.status,
      ]);
      expect(answer.json.message).toMatch(corpus.message);
    }
  }
}, 300_000);
