/** The parts of a request the plants operations take: headers, the path id and the page query. */
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithLambdaAuthorizer,
} from 'aws-lambda';
import * as v from 'valibot';
import { BadRequest } from '../http/answers';
import { PageQuery, PlantPath, describeIssues } from './schemas';

/** A payload 2.0 event with the authorizer's context, which may be missing when invoked directly. */
export type PlantsEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<unknown>;

/** A header's value; payload 2.0 lower-cases names, but a hand-made event may not. */
export function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  return headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** The id of `/plants/{id}`, or `BadRequest` unless it is an int64's canonical spelling. */
export function readPlantId(event: PlantsEvent): bigint {
  return readInput(PlantPath, event.pathParameters ?? {}).id;
}

/**
 * `limit`, `tag` and `cursor` of GET /plants, or `BadRequest` naming each one that is wrong.
 * API Gateway joins a repeated parameter's values with commas (`?tag=a&tag=b` arrives as
 * `tag: "a,b"`, a tag a plant may have), so a parameter of the page given twice is refused
 * from the raw query rather than read as one value.
 */
export function readPageQuery(event: PlantsEvent): PageQuery {
  const names = [...new URLSearchParams(event.rawQueryString ?? '').keys()];
  const repeated = [...new Set(names.filter((name, at) => names.indexOf(name) !== at))].filter(
    (name) => name in PageQuery.pipe[0].entries,
  );
  if (repeated.length > 0) {
    throw new BadRequest(repeated.map((name) => `${name}: must be given once`).join('; '));
  }
  return readInput(PageQuery, event.queryStringParameters ?? {});
}

/** `input` as `schema` reads it, or `BadRequest` naming each issue (also the local console's). */
export function readInput<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input);
  if (!result.success) throw new BadRequest(describeIssues(result.issues));
  return result.output;
}
