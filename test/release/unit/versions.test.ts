/**
 * Versions from one place (the root package.json), and what they must say: the repository as it
 * stands against the last kept release — openapi.json changed only under a new version, nothing
 * a client of the release sees without a new major, info.version and the client package equal to
 * package.json's, CHANGELOG.md with the entries it needs — and the rule shown to fail on each
 * mistake, with the OpenAPI comparison on mutated documents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../../../lib/definitions/version';
import { breakingChanges } from '../../../lib/release/openapi-compat';
import { readRelease } from '../../../lib/release/releases';
import {
  changelogEntries,
  versionProblems,
  type VersionState,
} from '../../../lib/release/versions';

// JSON documents changed freely in place, as openapi.test.ts does.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
const ROOT = join(__dirname, '../../..');
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Doc;
const release = readRelease();
const state: VersionState = {
  released: { version: release.version, openapi: release.openapi },
  version: json('package.json').version,
  openapi: json('openapi.json'),
  clientVersion: json('client/package.json').version,
  changelog: readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'),
};
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

it('the repository keeps the rule against the last release', () => {
  expect(versionProblems(state)).toEqual([]);
});

it('reads the version from package.json, the one place', () => {
  expect(VERSION).toBe(state.version);
  expect((state.openapi.info as { version: string }).version).toBe(VERSION);
});

it('the changelog has an entry per kept release, each for the three audiences', () => {
  const entries = changelogEntries(state.changelog);
  expect(entries.has(release.version)).toBe(true);
});

describe('the rule fails', () => {
  const released = { version: '1.0.0', openapi: release.openapi };
  const api = (version: string, change: (doc: Doc) => void = () => undefined) => {
    const doc = copy(release.openapi) as Doc;
    doc.info.version = version;
    change(doc);
    return doc;
  };
  const changelog = `## [Unreleased]\n### API clients\n### Webhook receivers\n### Operators\n## [1.0.0]\n### API clients\n### Webhook receivers\n### Operators\n`;
  const with_ = (version: string, openapi: Doc, more: Partial<VersionState> = {}) =>
    versionProblems({ released, version, openapi, clientVersion: version, changelog, ...more });
  const newExample = (doc: Doc) => {
    doc.paths['/plants'].post.responses['200'].description += ' (with an example)';
  };

  it('passes the release itself, and an unchanged API under a new version', () => {
    expect(
      with_('1.0.0', api('1.0.0'), {
        changelog: changelog.replace(/^## \[Unreleased\][^]*?(?=## \[1)/m, ''),
      }),
    ).toEqual([]);
    expect(with_('1.0.1', api('1.0.1'))).toEqual([]);
  });

  it('when openapi.json changes at all under the same version', () => {
    expect(
      with_('1.0.0', api('1.0.0', newExample), {
        changelog: changelog.replace(/^## \[Unreleased\][^]*?(?=## \[1)/m, ''),
      }),
    ).toEqual([
      expect.stringMatching(/^openapi.json differs from release 1.0.0's, under the same version/),
    ]);
    expect(with_('1.1.0', api('1.1.0', newExample))).toEqual([]);
  });

  it('when a client sees a change without a new major version', () => {
    const removed = api('1.1.0', (doc) => delete doc.paths['/plants/{id}'].delete);
    expect(with_('1.1.0', removed)).toEqual([
      'openapi.json breaks clients of 1.0.0 without a new major version:\n  DELETE /plants/{id}: removed',
    ]);
    expect(
      with_(
        '2.0.0',
        api('2.0.0', (doc) => delete doc.paths['/plants/{id}'].delete),
      ),
    ).toEqual([]);
  });

  it('when the version goes back, or the API or the client says another', () => {
    expect(with_('0.9.0', api('0.9.0'))).toContain(
      "package.json's version 0.9.0 is below the last release 1.0.0",
    );
    expect(with_('1.1.0', api('1.0.0'))).toContain(
      "openapi.json's info.version is 1.0.0, not package.json's 1.1.0: npm run openapi",
    );
    expect(with_('1.1.0', api('1.1.0'), { clientVersion: '0.1.0' })).toEqual([
      "client/package.json's version is 0.1.0, not package.json's 1.1.0",
    ]);
  });

  it('when the changelog lacks an entry or an audience', () => {
    expect(
      with_('1.1.0', api('1.1.0'), { changelog: changelog.replace('## [Unreleased]\n', '') }),
    ).toContain('CHANGELOG.md has no "## [Unreleased]" entry');
    expect(
      with_('1.1.0', api('1.1.0'), { changelog: changelog.replace('### Operators\n', '') }),
    ).toEqual(['CHANGELOG.md\'s Unreleased entry says nothing for Operators ("### Operators")']);
  });
});

describe('what clients of the release would notice in openapi.json', () => {
  const changed = (change: (doc: Doc) => void) => {
    const doc = copy(release.openapi) as Doc;
    change(doc);
    return breakingChanges(release.openapi, doc);
  };
  const schemas = (doc: Doc) => doc.components.schemas;

  it('nothing in the release itself', () => {
    expect(breakingChanges(release.openapi, release.openapi)).toEqual([]);
  });

  it('a removed operation, status or webhook', () => {
    expect(changed((doc) => delete doc.paths['/plants'].get)).toEqual(['GET /plants: removed']);
    expect(changed((doc) => delete doc.paths['/plants'].post.responses['409'])).toEqual([
      'POST /plants: removed response 409',
    ]);
    expect(changed((doc) => delete doc.webhooks.newPlant)).toEqual(['webhook newPlant: removed']);
  });

  it('a member an answer no longer has, or no longer always has', () => {
    expect(changed((doc) => delete schemas(doc).Plant.properties.name)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/POST \/plants 200 application\/json: member name removed/),
      ]),
    );
    expect(
      changed((doc) => {
        schemas(doc).Plant.required = schemas(doc).Plant.required.filter(
          (m: string) => m !== 'name',
        );
      }),
    ).toEqual(
      expect.arrayContaining([expect.stringMatching(/member name is no longer always present/)]),
    );
  });

  it('a narrower request: a new required member, a shorter limit, a new required parameter', () => {
    const narrower = changed((doc) => {
      const plant = schemas(doc).NewPlant;
      plant.properties.name.maxLength = plant.properties.name.maxLength - 1;
      plant.properties.colour = { type: 'string' };
      plant.required = [...plant.required, 'colour'];
      doc.paths['/plants'].get.parameters.push({
        name: 'owner',
        in: 'query',
        required: true,
        schema: { type: 'string' },
      });
    });
    expect(narrower).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^POST \/plants body application\/json\.name: maxLength \d+ → \d+ \(accepts less\)$/,
        ),
        'POST /plants body application/json: member colour became required',
        'GET /plants: parameter query:owner became required',
      ]),
    );
  });

  it('what the others add today passes: an optional member, an example, a new status or operation', () => {
    expect(
      changed((doc) => {
        schemas(doc).NewPlant.properties.colour = { type: 'string', maxLength: 20 };
        schemas(doc).Plant.properties.colour = { type: 'string', maxLength: 20 };
        const ok = doc.paths['/plants'].post.responses['200'];
        ok.content['application/json'].examples = { one: { value: { id: 1, name: 'a' } } };
        ok.description = 'Stored.';
        doc.paths['/plants'].post.responses['422'] = { description: 'new' };
        doc.paths['/plants/{id}'].put = { responses: { '200': { description: 'new' } } };
      }),
    ).toEqual([]);
  });
});
