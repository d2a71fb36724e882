/**
 * The adversarial corpus over HTTP through the local runtime (the deployed bundles behind the
 * emulated gateway, as `npm start` runs them): every body gets the same answer as in-process,
 * and a bystander's request sent while the corpus is in flight is answered too.
 */
import { ADVERSARIAL_BODIES } from '../../support/adversarial-bodies';
import { useLocalService } from '../../support/local-service';

const service = useLocalService('adversarial');

/**
 * POSTs `body`; a 503 (the engine, in this process, starved by the burst's sandboxes on a busy
 * machine) is retried as the contract tells a client to: a create is safe to repeat.
 */
async function post(body: string) {
  for (;;) {
    const response = await fetch(`${service.url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${service.devToken}`,
        'content-type': 'application/json',
      },
      body,
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status !== 503) return { status: response.status, json };
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
