/**
 * The shapes in which an operation's OpenAPI text is written (its answers, headers, parameters)
 * and the bodies it names: what each function folder's `openapi.ts` and the shared answers
 * speak, and what lib/generators/openapi/ turns into the document.
 */
import * as v from 'valibot';
import {
  ErrorBody,
  GatewayMessage,
  NewPlant,
  Plant,
  PlantPage,
  PlantPatch,
  PlantReplacement,
  StoredPlant,
} from '../schemas';

/** The bodies the document names, by their name under `components/schemas`. */
export const BODY_SCHEMAS = {
  NewPlant,
  Plant,
  StoredPlant,
  PlantPage,
  PlantReplacement,
  PlantPatch,
  Error: ErrorBody,
  GatewayMessage,
} as const;
/**
 * A body's name under `components/schemas`: one of `BODY_SCHEMAS`, or one the operation defines
 * itself (`OperationDescription.schemas`).
 */
export type BodyName = keyof typeof BODY_SCHEMAS | (string & Record<never, never>);

/** A response header. */
export interface HeaderDescription {
  readonly description: string;
  readonly schema: v.GenericSchema;
}

/** One answer of a function: when it is given and its body (none for a 204). */
export interface AnswerDescription {
  readonly description: string;
  readonly body?: BodyName;
  /**
   * The body exactly as the function answers it for the example request (ids as `bigint`s);
   * test/generators/e2e/openapi-examples.test.ts provokes each one and compares.
   */
  readonly example?: unknown;
  readonly headers?: Readonly<Record<string, HeaderDescription>>;
}

/** A path or query parameter. */
export interface ParameterDescription {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description: string;
  readonly required: boolean;
  readonly schema: v.GenericSchema;
}

/** Everything the document says about one route beyond `lib/definitions/api.ts`. */
export interface OperationDescription {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters?: readonly ParameterDescription[];
  readonly requestBody?: {
    readonly description: string;
    readonly body: BodyName;
    /**
     * The body of the example request, about the example plant (ids as `bigint`s): the
     * document shows it, and every tool that sends the operation derives its request from it
     * (another plant's id in place of the example plant's).
     */
    readonly example: unknown;
    /** @default ['application/json'] */
    readonly mediaTypes?: readonly string[];
  };
  /** The function's answers by status. */
  readonly answers: Readonly<Record<number, AnswerDescription>>;
  /**
   * Bodies of the operation's own (its request's, an answer's), by their name under
   * `components/schemas`, so that its folder needs no edit of `BODY_SCHEMAS`.
   * @default - none: its bodies are the shared ones
   */
  readonly schemas?: Readonly<Record<string, v.GenericSchema>>;
}
