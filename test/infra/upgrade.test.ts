/**
 * Upgrades lose nothing (CONTRACT): both stacks as `cdk synth` builds them today (the default and
 * prod, as releases/ keeps them) compared with every kept release's templates — no table, key or
 * queue gone, of another type or logical id, or changed in a property that replaces it; prod
 * retains every table and key. The comparison is shown to catch each of those on a mutated
 * template, the plants table's key type first.
 */
import { Template as Assertions } from 'aws-cdk-lib/assertions';
import { STREAM_FILTER_PATTERN } from '../../lib/definitions/webhooks';
import { addPlantStore } from '../../lib/infra/app';
import { PLANTS_BY_TAG_INDEX } from '../../lambda/aws/tables';
import { RELEASE_STACKS, readRelease, releaseVersions } from '../../lib/release/releases';
import {
  compareStateful,
  indexChanges,
  unretained,
  type Finding,
  type Template,
} from '../../lib/release/stateful';
import { appFolder, testApp } from '../support/cdk-app';

// JSON documents changed freely in place, as openapi.test.ts does.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
/** One kept stack as the app synthesizes it now (bundling skipped: code is not compared). */
function synthesize(context: Record<string, string>): Template {
  const app = testApp(context, { outdir: appFolder('plant-store-upgrade-') });
  const stack = addPlantStore(app);
  app.synth();
  return Assertions.fromStack(stack).toJSON() as Template;
}

const release = readRelease();
const current = Object.fromEntries(
  RELEASE_STACKS.map(({ stackName, context }) => [stackName, synthesize(context)]),
) as Record<(typeof RELEASE_STACKS)[number]['stackName'], Template>;
const messages = (findings: Finding[]) => findings.map((finding) => finding.message);

it('keeps every release since the first, 1.0.0 (main at bc48fb5), and 1.1.0 (1c53ea5)', () => {
  expect(releaseVersions().slice(0, 2)).toEqual(['1.0.0', '1.1.0']);
  expect(release.version).toBe(releaseVersions().at(-1));
});

// A stage may be upgraded from any kept release, not only the last: each is compared.
it.each(
  releaseVersions().flatMap((version) =>
    RELEASE_STACKS.map(({ stackName }) => [stackName, version] as const),
  ),
)('%s keeps every table, key and queue of release %s, as it was', (stackName, version) => {
  const released = readRelease(version).templates[stackName];
  const stateful = Object.values(released.Resources).filter((r) =>
    ['AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::SQS::Queue'].includes(r.Type),
  );
  expect(stateful.length).toBeGreaterThanOrEqual(7);
  expect(messages(compareStateful(released, current[stackName]))).toEqual([]);
});

it.each(RELEASE_STACKS.map(({ stackName }) => stackName))(
  '%s from 1.1.0: byTag is added to the plants table in place — same logical id, key schema and stream, one index',
  (stackName) => {
    const released = readRelease('1.1.0').templates[stackName].Resources.PlantsTable0ED39346!;
    const now = current[stackName].Resources.PlantsTable0ED39346!;
    expect(indexChanges(released, now)).toEqual({
      created: [PLANTS_BY_TAG_INDEX.name],
      deleted: [],
    });
    for (const property of ['KeySchema', 'StreamSpecification', 'TableName'] as const) {
      expect(now.Properties?.[property]).toEqual(released.Properties?.[property]);
    }
    expect(
      messages(compareStateful(readRelease('1.1.0').templates[stackName], current[stackName])),
    ).toEqual([]);
  },
);

// A stream's mapping replaced (a new logical id, or a new EventSourceArn or StartingPosition,
// which CloudFormation cannot update) starts a new position in the stream: the records the old
// one had not read are never fanned out. A changed filter is an UpdateEventSourceMapping.
it.each(
  releaseVersions().flatMap((version) =>
    RELEASE_STACKS.map(({ stackName }) => [stackName, version] as const),
  ),
)(
  "%s updates release %s's stream mapping in place (its filter may change)",
  (stackName, version) => {
    const streamMappings = (template: Template) =>
      Object.entries(template.Resources).filter(
        ([, r]) =>
          r.Type === 'AWS::Lambda::EventSourceMapping' &&
          JSON.stringify(r.Properties?.EventSourceArn).includes('StreamArn'),
      );
    const [[releasedId, released]] = streamMappings(readRelease(version).templates[stackName]) as [
      [string, Doc],
    ];
    const now = streamMappings(current[stackName]);
    expect(now.map(([id]) => id)).toEqual([releasedId]);
    const replacing = ['EventSourceArn', 'StartingPosition', 'StartingPositionTimestamp'];
    for (const property of replacing) {
      expect([property, now[0]![1].Properties?.[property]]).toEqual([
        property,
        released.Properties?.[property],
      ]);
    }
    expect(now[0]![1].Properties?.FilterCriteria).toEqual({
      Filters: [{ Pattern: JSON.stringify(STREAM_FILTER_PATTERN) }],
    });
  },
);

it('prod retains every table and key, on delete and on replacement', () => {
  expect(messages(unretained(current['PlantStore-prod']))).toEqual([]);
});

describe('the comparison catches what would lose data (mutated templates)', () => {
  const released = release.templates.PlantStore;
  /** A deep copy of today's default template, changed by `change`. */
  const mutated = (change: (resources: Record<string, Doc>) => void) => {
    const copy = JSON.parse(JSON.stringify(current.PlantStore)) as Template;
    change(copy.Resources as Record<string, Doc>);
    return compareStateful(released, copy);
  };

  it("the plants table's key becomes a string: named, with the property", () => {
    const findings = mutated((resources) => {
      resources.PlantsTable0ED39346!.Properties.AttributeDefinitions = [
        { AttributeName: 'id', AttributeType: 'S' },
      ];
    });
    expect(findings).toEqual([
      {
        logicalId: 'PlantsTable0ED39346',
        type: 'AWS::DynamoDB::Table',
        property: 'AttributeDefinitions.id.AttributeType',
        message:
          'AWS::DynamoDB::Table PlantsTable0ED39346: the key attribute id changed type from "N" to "S", which replaces the table with a new, empty one',
      },
    ]);
  });

  it('a new key schema, a table name or a queue name', () => {
    const findings = mutated((resources) => {
      resources.TokensTable6C9B5BC6!.Properties.KeySchema = [
        { AttributeName: 'tokenId', KeyType: 'HASH' },
      ];
      resources.TokensTable6C9B5BC6!.Properties.AttributeDefinitions = [
        { AttributeName: 'tokenId', AttributeType: 'S' },
      ];
      resources.PlantsTable0ED39346!.Properties.TableName = 'plants';
      resources.WebhooksDeliveryQueue42B30D41!.Properties.QueueName = 'deliveries';
    });
    expect(findings.map((f) => [f.logicalId, f.property])).toEqual([
      ['PlantsTable0ED39346', 'TableName'],
      ['TokensTable6C9B5BC6', 'KeySchema'],
      ['WebhooksDeliveryQueue42B30D41', 'QueueName'],
    ]);
  });

  it("a key's spec, which CloudFormation cannot change", () => {
    const findings = mutated((resources) => {
      resources.WebhooksSecretsKeyD20F1394!.Properties.KeySpec = 'RSA_2048';
    });
    expect(messages(findings)).toEqual([
      'AWS::KMS::Key WebhooksSecretsKeyD20F1394: KeySpec changed from "SYMMETRIC_DEFAULT" to "RSA_2048", which CloudFormation cannot update (the key is immutable)',
    ]);
  });

  it('a queue gone, a table under a new logical id, a key of another type', () => {
    const findings = mutated((resources) => {
      delete resources.WebhooksDeadLetterQueue1C65998B;
      resources.PlantsTableMoved = resources.PlantsTable0ED39346!;
      delete resources.PlantsTable0ED39346;
      resources.WebhooksSecretsKeyD20F1394!.Type = 'AWS::KMS::ReplicaKey';
    });
    expect(messages(findings)).toEqual([
      'AWS::DynamoDB::Table PlantsTable0ED39346 is gone (its logical id became PlantsTableMoved: CloudFormation would create a new, empty one)',
      'AWS::SQS::Queue WebhooksDeadLetterQueue1C65998B is gone: CloudFormation would delete it',
      'WebhooksSecretsKeyD20F1394 changed type from AWS::KMS::Key to AWS::KMS::ReplicaKey: CloudFormation would replace it',
    ]);
  });

  it('a table no longer retained', () => {
    const findings = mutated((resources) => {
      resources.TokensTable6C9B5BC6!.DeletionPolicy = 'Delete';
    });
    expect(findings.map((f) => [f.logicalId, f.property])).toEqual([
      ['TokensTable6C9B5BC6', 'DeletionPolicy'],
    ]);
    const prod = JSON.parse(JSON.stringify(current['PlantStore-prod'])) as Template;
    (
      prod.Resources.MonitoringAlarmsKey8162515D as { UpdateReplacePolicy?: string }
    ).UpdateReplacePolicy = 'Delete';
    expect(unretained(prod).map((f) => [f.logicalId, f.property])).toEqual([
      ['MonitoringAlarmsKey8162515D', 'UpdateReplacePolicy'],
    ]);
  });

  it("the plants table's stream view type, which ends the stream and loses its unread records", () => {
    const findings = mutated((resources) => {
      resources.PlantsTable0ED39346!.Properties.StreamSpecification = {
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      };
    });
    expect(messages(findings)).toEqual([
      'AWS::DynamoDB::Table PlantsTable0ED39346: the stream\'s view type changed from "NEW_IMAGE" to "NEW_AND_OLD_IMAGES", which ends its stream: records not yet read by its consumer are lost',
    ]);
    const removed = mutated((resources) => {
      delete resources.PlantsTable0ED39346!.Properties.StreamSpecification;
    });
    expect(removed.map((f) => f.property)).toEqual(['StreamSpecification.StreamViewType']);
  });

  it('two indexes created at once, or an index changed in place, which no deploy can do', () => {
    const index = (name: string, sortKey = 'id') => ({
      IndexName: name,
      KeySchema: [
        { AttributeName: 'tag', KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    });
    const twice = mutated((resources) => {
      resources.PlantsTable0ED39346!.Properties.GlobalSecondaryIndexes = [
        index('byTag'),
        index('byName'),
      ];
    });
    expect(twice.map((f) => f.property)).toEqual(['GlobalSecondaryIndexes']);
    expect(twice[0]!.message).toContain('creates or deletes at most one global secondary index');
    // Against a template that has byTag already, a changed sort key is an in-place change.
    const withIndex = JSON.parse(JSON.stringify(current.PlantStore)) as Template;
    const changed = JSON.parse(JSON.stringify(withIndex)) as Template;
    (changed.Resources.PlantsTable0ED39346 as Doc).Properties.GlobalSecondaryIndexes = [
      index('byTag', 'createdAt'),
    ];
    expect(compareStateful(withIndex, changed).map((f) => f.property)).toEqual([
      'GlobalSecondaryIndexes.byTag.KeySchema',
    ]);
  });

  it('what does not lose data passes: a new property, a new table, a changed policy', () => {
    const findings = mutated((resources) => {
      resources.PlantsTable0ED39346!.Properties.TableClass = 'STANDARD_INFREQUENT_ACCESS';
      resources.WebhooksDeliveryQueue42B30D41!.Properties.VisibilityTimeout = 900;
      resources.WebhooksSecretsKeyD20F1394!.Properties.KeyPolicy = { Statement: [] };
      resources.NewTable = { Type: 'AWS::DynamoDB::Table', Properties: {} };
    });
    expect(findings).toEqual([]);
  });
});
