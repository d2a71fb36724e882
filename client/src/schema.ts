/**
 * The Plant Store API as TypeScript types, generated from openapi.json by openapi-typescript
 * (int64 as bigint), the members of NewPlant and where answers hold an int64. Do not edit: `npm run generate` rewrites this file.
 */
import type { Int64Answers, Int64Locations } from './exact-json.js';

export interface paths {
    "/plants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List plants, a page at a time (all, or those of one tag)
         * @description Answers at most `limit` plants and, while more may follow, `next`: pass it back as `cursor` for the next page. Needs the scope `plants:read`. One Scan per page.
         *
         *     A page may be short or even empty while `next` is present; the walk ends only when `next` is absent. Order is unspecified, but a walk from the first page to the last returns every plant that existed for the whole walk exactly once. The cursor is opaque and grants nothing. Unknown query parameters are ignored.
         *
         *     With `tag`, only the plants with that tag, in id order (ascending), one Query of the tag index per page, with the same paging and walk guarantee. The index is eventually consistent: a create, change or delete shows in a tag list a moment after it answers. A `next` is valid for the list that made it only: with the same `tag`, or without one.
         *
         *     While a newly added index is still being built (the deploy that adds it returns before its backfill ends, which may take hours on a large table), a list by tag answers 503 with `Retry-After: 30`, never a partial list; the list without `tag` answers as ever.
         *
         *     Checks run in this order: scope (403), `limit`, `tag` and `cursor` (400, naming each), store (200/503).
         */
        get: operations["listPlants"];
        put?: never;
        /**
         * Create a plant
         * @description Creates a new plant in the store. Needs the scope `plants:write`.
         *
         *     Send `Content-Type: application/json` (or any `application/*+json`; parameters allowed, a charset other than utf-8 is 415) and one JSON object of at most 262144 bytes. `id` is an integer from -9223372036854775808 to 9223372036854775807 in any JSON spelling of an integer (`5`, `5.0`, `5e0`), kept exactly: never through a float64. `name` is a string of at most 1000 characters and `tag`, when present, a string (`null` is not) of at most 100; a character is a Unicode code point, as `maxLength` counts (an emoji is one). Other members are ignored; a member that appears twice is a 400.
         *
         *     Checks run in this order: scope (403), content type (415), size (413), JSON syntax (400), fields (400), store (200/409/503). Nothing is written unless the answer is 200, or a 503 for a create the store did not confirm (see 503).
         *
         *     A safe retry: sending the same id with the same name and tag again answers 200 and writes nothing.
         */
        post: operations["createPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a plant
         * @description Answers the plant stored under `id`, with its id, and its version as `ETag`. Needs the scope `plants:read`. One strongly consistent read: a plant is readable as soon as its POST has answered.
         *
         *     With `If-Match` naming none of its versions, 412; else with `If-None-Match` naming the stored version, 304 without a body.
         *
         *     Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), store (200/304/404/412/503).
         */
        get: operations["getPlant"];
        /**
         * Replace a plant
         * @description Replaces the members of the plant stored under `id` (all but its id) with the body's: a member left out is removed. One conditional UpdateItem.
         *
         *     The body follows POST's rules: JSON (`application/json` or any `application/*+json` but a patch document: `application/json-patch+json` and `application/merge-patch+json` are 415) of at most 262144 bytes, `name` is a string of at most 1000 characters and `tag`, when present, a string (`null` is not) of at most 100; other members are ignored, a member that appears twice is a 400. An `id` may be sent and must equal the path's.
         *
         *     Each change that changes something raises the version by one (`ETag`); one that changes nothing (`{}`, or the members stored) writes nothing: the version stays and no event is sent. With `If-Match`, it applies only while the plant is at a version named there: of concurrent changes sent with the same `If-Match`, one succeeds and the others are 412, so no change is lost. With `If-None-Match`, only while it is at none named there (`*`: never, since a change needs a plant). Without either, the change applies to whatever is stored, atomically (never a partial write). The plant's `createdAt` is kept; `plantUpdated` subscribers are told.
         *
         *     Needs the scope `plants:write`, of a token made with 1.2.0 or later: a token made before keeps what its scopes let it do then (create, not change; 403).
         *
         *     A token that also has `plants:read` is answered the plant (200); a token with `plants:write` alone gets 204 with the new `ETag` and no body: a change never shows a stored member to a token that may not read it.
         *
         *     Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), content type (415), size (413), JSON syntax (400), fields (400), store (200/204/404/412/503). Nothing is written unless the answer is 200 or 204 (and not then when the change changes nothing), or a 503 for a write the store did not confirm (see 503).
         */
        put: operations["updatePlant"];
        post?: never;
        /**
         * Delete a plant
         * @description Deletes the plant stored under `id`. Needs the scope `plants:delete`, which tokens get only when asked for. With `If-Match`, only while the plant is at a version it names; with `If-None-Match`, only while it is at none (412 otherwise, nothing deleted). One write: an UpdateItem marks the plant deleted (so that the deletion, with its version, reaches `plantDeleted` subscribers, and a replay finds it) and keeps it for good as a tombstone of its id, version and times that no read, list or change sees. After a delete the id is free: POST may create it again, and the new plant's versions continue from the deletion's, so no ETag of the deleted plant matches it.
         *
         *     Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), store (204/404/412/503).
         */
        delete: operations["deletePlant"];
        options?: never;
        head?: never;
        /**
         * Change some members of a plant
         * @description Applies a JSON Merge Patch (RFC 7396) to the plant stored under `id`: a member set to a value is set, a member set to `null` is removed (`{"tag":null}`; `name` cannot be removed: `{"name":null}` is a 400), a member left out stays. One conditional UpdateItem.
         *
         *     Send `application/merge-patch+json` (or `application/json`; any other type, JSON Patch among them, is 415 with `Accept-Patch`), at most 262144 bytes; each member follows POST's rules (`name` is a string of at most 1000 characters and `tag`, when present, a string (`null` is not) of at most 100). An `id` may be sent and must equal the path's.
         *
         *     Each change that changes something raises the version by one (`ETag`); one that changes nothing (`{}`, or the members stored) writes nothing: the version stays and no event is sent. With `If-Match`, it applies only while the plant is at a version named there: of concurrent changes sent with the same `If-Match`, one succeeds and the others are 412, so no change is lost. With `If-None-Match`, only while it is at none named there (`*`: never, since a change needs a plant). Without either, the change applies to whatever is stored, atomically (never a partial write). The plant's `createdAt` is kept; `plantUpdated` subscribers are told.
         *
         *     Needs the scope `plants:write`, of a token made with 1.2.0 or later: a token made before keeps what its scopes let it do then (create, not change; 403).
         *
         *     A token that also has `plants:read` is answered the plant (200); a token with `plants:write` alone gets 204 with the new `ETag` and no body: a change never shows a stored member to a token that may not read it.
         *
         *     Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), content type (415), size (413), JSON syntax (400), fields (400), store (200/204/404/412/503). Nothing is written unless the answer is 200 or 204 (and not then when the change changes nothing), or a 503 for a write the store did not confirm (see 503).
         */
        patch: operations["patchPlant"];
        trace?: never;
    };
}
export interface webhooks {
    newPlant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant was stored
         * @description Sent to every subscriber that chose newPlant (every subscriber unless `--events` says otherwise) for each plant a create stored: a 200 that wrote an item, also over an id whose delete was interrupted. A retried create answered 200 without writing, a 409 and any other error send nothing.
         *
         *     Signed as Standard Webhooks 1.0 says: verify with any Standard Webhooks library and the subscriber's `whsec_` secret. Success is a 2xx within 10 s; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h, 10 h, 10 h, 10 h, 10 h (each up to 20 % longer, never shorter), 13 attempts over at least 77 h 35 min, then dead-lettered (never sooner). Delivery is at least once and in no particular order: deduplicate by `webhook-id`.
         *
         *     A subscriber that chose more than newPlant (`--events`) receives typed bodies that carry `type`, `createdAt` and `version`. Delivery is in no particular order; a receiver orders the events of one id by (`createdAt`, `version`) — `createdAt` names the incarnation (an id deleted and created again has a later one; it compares as text), `version` orders within it, a plantDeleted is the last version of its incarnation — keeps the greatest pair it has seen and drops an event whose pair is smaller or equal: it is stale (docs/guides/receiving-webhooks.md shows such a receiver).
         */
        post: operations["newPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    plantUpdated: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant was changed
         * @description Sent to every subscriber that chose plantUpdated (`npm run webhook -- add|update --events plantUpdated,…`) for each change a PUT or PATCH stored: the whole plant after it, at its new version. A 404, 412 or any other error sends nothing.
         *
         *     Signed as Standard Webhooks 1.0 says: verify with any Standard Webhooks library and the subscriber's `whsec_` secret. Success is a 2xx within 10 s; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h, 10 h, 10 h, 10 h, 10 h (each up to 20 % longer, never shorter), 13 attempts over at least 77 h 35 min, then dead-lettered (never sooner). Delivery is at least once and in no particular order: deduplicate by `webhook-id`.
         *
         *     A subscriber that chose more than newPlant (`--events`) receives typed bodies that carry `type`, `createdAt` and `version`. Delivery is in no particular order; a receiver orders the events of one id by (`createdAt`, `version`) — `createdAt` names the incarnation (an id deleted and created again has a later one; it compares as text), `version` orders within it, a plantDeleted is the last version of its incarnation — keeps the greatest pair it has seen and drops an event whose pair is smaller or equal: it is stale (docs/guides/receiving-webhooks.md shows such a receiver).
         */
        post: operations["plantUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    plantDeleted: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant was deleted
         * @description Sent to every subscriber that chose plantDeleted for each plant a DELETE deleted (a 204 that found it): its id, the `createdAt` of the plant deleted and its last version. A 404, 412 or any other error sends nothing.
         *
         *     Signed as Standard Webhooks 1.0 says: verify with any Standard Webhooks library and the subscriber's `whsec_` secret. Success is a 2xx within 10 s; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h, 10 h, 10 h, 10 h, 10 h (each up to 20 % longer, never shorter), 13 attempts over at least 77 h 35 min, then dead-lettered (never sooner). Delivery is at least once and in no particular order: deduplicate by `webhook-id`.
         *
         *     A subscriber that chose more than newPlant (`--events`) receives typed bodies that carry `type`, `createdAt` and `version`. Delivery is in no particular order; a receiver orders the events of one id by (`createdAt`, `version`) — `createdAt` names the incarnation (an id deleted and created again has a later one; it compares as text), `version` orders within it, a plantDeleted is the last version of its incarnation — keeps the greatest pair it has seen and drops an event whose pair is smaller or equal: it is stale (docs/guides/receiving-webhooks.md shows such a receiver).
         */
        post: operations["plantDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description The body of POST /plants. `id` is an int64 and must never pass through a float64: a JavaScript number loses digits above 2^53 (9007199254740993 would become 9007199254740992). `name` and `tag` count their characters as Unicode code points, as `maxLength` does: an emoji outside the Basic Multilingual Plane is one character, though a JavaScript string holds it in two units. Other members are accepted and ignored. */
        NewPlant: {
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 1
             */
            id: bigint;
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
        };
        /** @description A plant as POST /plants answers it: its name and tag, never its id. */
        Plant: {
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
        };
        /** @description A plant as GET /plants/{id} and GET /plants answer it: its id as a JSON integer with every digit (never a string, never through a float64), its name, and its tag only if it has one. A plant stored before the length limits of NewPlant existed is answered as it is, so its name or tag may be longer. */
        StoredPlant: {
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 9007199254740993
             */
            id: bigint;
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
        };
        /** @description One page of GET /plants. The walk ends only when `next` is absent; it returns every plant that existed for the whole walk exactly once, in no particular order. */
        PlantPage: {
            /** @description At most `limit` plants; possibly fewer, even none, while `next` is present */
            plants: components["schemas"]["StoredPlant"][];
            /** @description Opaque cursor: pass it as `cursor` to get the next page; absent on the last page */
            next?: string;
        };
        /** @description The body of PUT /plants/{id}: the plant's members besides its id, each replaced (a member left out is removed, `name` is required), with the rules of NewPlant. An `id` may be sent and must then equal the path's. Other members are accepted and ignored. */
        PlantReplacement: {
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 1
             */
            id?: bigint;
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
        };
        /** @description The body of PATCH /plants/{id}, a JSON Merge Patch (RFC 7396): a member with a value sets it (the rules of NewPlant), `null` removes it (`tag`; `name` is required and cannot be removed), a member left out stays as it is. An `id` may be sent and must then equal the path's. Other members are accepted and ignored. */
        PlantPatch: {
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 1
             */
            id?: bigint;
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name?: string;
            tag?: string | null;
        };
        /** @description An error answered by the function. `error` equals the HTTP status; a 4xx `message` says what to fix, a 5xx one is generic. */
        Error: {
            /**
             * Format: int32
             * @description Numeric error value
             * @example 400
             */
            error: number;
            /**
             * @description Error message
             * @example id: required; name: must be a string
             */
            message: string;
        };
        /** @description An answer of the API gateway itself: the function was not called or failed. */
        GatewayMessage: {
            /**
             * @description The status in words, e.g. "Unauthorized" or "Service Unavailable"
             * @example Unauthorized
             */
            message: string;
        };
        /** @description The newPlant body of a subscriber that chose more events than newPlant: the plant as created, its `type`, its `createdAt` and the version it was created at (1, or one more than its deletion for an id created again). A subscriber of newPlant alone receives NewPlant, as always. */
        NewPlantEvent: {
            /** @constant */
            type: "newPlant";
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 9007199254740993
             */
            id: bigint;
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
            /**
             * Format: date-time
             * @description When this id was created (ISO-8601 UTC, fixed width: it compares as text). A plant deleted and created again has a later one: it names the incarnation the event belongs to.
             * @example 2026-11-25T08:00:00.000Z
             */
            createdAt: string;
            /** @description The plant's version after this event: 1 when created (an id created again continues from its deletion's), one more with each change; a deletion's is the last of its incarnation. The ETag of the plant at that version. */
            version: number;
        };
        /** @description A change (PUT or PATCH): the whole plant after it, with its new version. */
        PlantUpdatedEvent: {
            /** @constant */
            type: "plantUpdated";
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 9007199254740993
             */
            id: bigint;
            /**
             * @description The name of the plant
             * @example Monstera
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
            /**
             * Format: date-time
             * @description When this id was created (ISO-8601 UTC, fixed width: it compares as text). A plant deleted and created again has a later one: it names the incarnation the event belongs to.
             * @example 2026-11-25T08:00:00.000Z
             */
            createdAt: string;
            /** @description The plant's version after this event: 1 when created (an id created again continues from its deletion's), one more with each change; a deletion's is the last of its incarnation. The ETag of the plant at that version. */
            version: number;
        };
        /** @description A delete: the id, the `createdAt` of the plant deleted and its last version (one more than the version it had). */
        PlantDeletedEvent: {
            /** @constant */
            type: "plantDeleted";
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 9007199254740993
             */
            id: bigint;
            /**
             * Format: date-time
             * @description When this id was created (ISO-8601 UTC, fixed width: it compares as text). A plant deleted and created again has a later one: it names the incarnation the event belongs to.
             * @example 2026-11-25T08:00:00.000Z
             */
            createdAt: string;
            /** @description The plant's version after this event: 1 when created (an id created again continues from its deletion's), one more with each change; a deletion's is the last of its incarnation. The ETag of the plant at that version. */
            version: number;
        };
    };
    responses: {
        /** @description From the gateway: `{"message":"Not Found"}` when no route has this method and path (a trailing slash does not match; there is no 405). */
        GatewayNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Not Found"
                 *     }
                 */
                "application/json": components["schemas"]["GatewayMessage"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listPlants: {
        parameters: {
            query?: {
                /** @description Plants per page at most: an integer from 1 to 100 in plain decimal; 20 when left out. */
                limit?: number;
                /** @description Only the plants with this tag, in id order: not empty (an empty tag cannot key the index: a plant with one is in no tag list), and at most 2048 bytes in UTF-8, the longest key of a DynamoDB index (a create takes a tag of 100 characters at most; a plant stored before the limits may have a longer one, and is in no tag list if it is longer than the index takes). Percent-encode it as any query value. */
                tag?: string;
                /** @description The `next` of the previous page, unchanged; left out for the first page. Opaque: it only says where the walk resumes and grants nothing. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of plants, and `next` while more may follow. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "plants": [
                     *         {
                     *           "id": "9007199254740993",
                     *           "name": "Monstera",
                     *           "tag": "aroid"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["PlantPage"];
                };
            };
            /** @description `limit` is not an integer from 1 to 100, `tag` is empty or too long, or `cursor` cannot be a `next` of this service (not decodable, not a key of the table) or is the `next` of another list (another tag, a tag list's without `tag`, the plain list's with one): `limit: must be an integer from 1 to 100`, `tag: must not be empty, and at most 2048 bytes in UTF-8`, `cursor: must be the next value of a previous page`, `cursor: must be the next value of a previous page of the same list (the same tag, or none)`, joined by `; ` when several. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "limit: must be an integer from 1 to 100"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Unauthorized"}` when the request has no `Authorization` header, or an empty one (the authorizer is not called). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unauthorized"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The token is valid but lacks the scope `plants:read`. The message says which.
             *
             *     From the gateway (GatewayMessage): `{"message":"Forbidden"}` when the authorizer refused the token (malformed, unknown, expired or revoked).
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Entity Too Large"}` when the request is larger than the gateway's 10 MB, or the event it makes larger than Lambda's 6 MB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Entity Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Too Many Requests"}` when the stage is throttling requests, or has too many in flight. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too Many Requests"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Header Fields Too Large"}` when the request line and headers are larger than 10,240 bytes. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Header Fields Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).
             *
             *     From the gateway (GatewayMessage): `{"message":"Internal Server Error"}` when the authorizer or the function failed, timed out, was throttled or answered something malformed.
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The store is throttled or unreachable after retries; or, with `tag`, the tag index is still being built after an upgrade added it (`Retry-After: 30`, until the index is ACTIVE). Retry after `Retry-After` seconds.
             *
             *     From the gateway (GatewayMessage): `{"message":"Service Unavailable"}` when the function did not answer within 30 s.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying: 1, or 30 while the tag index is being built. Set on the function's 503 (Error body); the gateway's own 503 has none. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
        };
    };
    createPlant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The plant to create. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "9007199254740993",
                 *       "name": "Monstera",
                 *       "tag": "aroid"
                 *     }
                 */
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description plant response: the plant was created, or the same id was already stored with the same name and tag (nothing written). The body is the Plant: no id; `tag` only if the plant has one. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Monstera",
                     *       "tag": "aroid"
                     *     }
                     */
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description unexpected error: the body is not JSON, not an object, repeats a member, or breaks a field rule. The message names every offending field and its rule, e.g. `id: required; name: must be a string` or `name: must be at most 1000 characters`. A create that repeats a plant stored before the limits existed, and longer than they allow, is a 400 too. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id: required; name: must be a string"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Unauthorized"}` when the request has no `Authorization` header, or an empty one (the authorizer is not called). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unauthorized"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The token is valid but lacks the scope `plants:write`. The message says which.
             *
             *     From the gateway (GatewayMessage): `{"message":"Forbidden"}` when the authorizer refused the token (malformed, unknown, expired or revoked).
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description The id is already taken by a plant with another name or tag. Do not retry: choose another id. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 409,
                     *       "message": "id: 9007199254740993 is already taken by a plant with another name or tag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description From the function (Error): The body is larger than 262144 bytes (256 KiB).
             *
             *     From the gateway (GatewayMessage): `{"message":"Request Entity Too Large"}` when the request is larger than the gateway's 10 MB, or the event it makes larger than Lambda's 6 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description The content type is not JSON (`application/json` or `application/*+json`). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "content-type text/plain is not accepted; send application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Too Many Requests"}` when the stage is throttling requests, or has too many in flight. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too Many Requests"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Header Fields Too Large"}` when the request line and headers are larger than 10,240 bytes. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Header Fields Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).
             *
             *     From the gateway (GatewayMessage): `{"message":"Internal Server Error"}` when the authorizer or the function failed, timed out, was throttled or answered something malformed.
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The store is throttled or unreachable after retries, and nothing was written; or the store did not answer whether the write was made, and reading the plant did not tell: then it may have been made (and written over since), and may still be made within seconds. Retry after `Retry-After` seconds; repeat a change with `If-Match`, after reading the plant to see whether it is there.
             *
             *     From the gateway (GatewayMessage): `{"message":"Service Unavailable"}` when the function did not answer within 30 s.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (1). Set on the function's 503 (Error body); the gateway's own 503 has none. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
        };
    };
    getPlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Answer only if the plant is at one of these versions: `*` (any) or a comma-separated list of entity tags from `ETag`, compared strongly; otherwise 412. Judged before `If-None-Match`. */
                "If-Match"?: string;
                /** @description Answer 304 (no body) if the plant is at one of these versions: `*` or a comma-separated list of entity tags from `ETag` (compared weakly: `W/"3"` matches `"3"`). */
                "If-None-Match"?: string;
            };
            path: {
                /** @description Identification number of the plant: the canonical decimal spelling of an int64 (`0`, `42`, `-7`; no `+`, no leading zeros, no exponent, no fraction), after percent-decoding. */
                id: bigint;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plant: `id` as a JSON integer with every digit (never a string, never through a float64); `tag` only if the plant has one. `ETag` is its version. */
            200: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9007199254740993",
                     *       "name": "Monstera",
                     *       "tag": "aroid"
                     *     }
                     */
                    "application/json": components["schemas"]["StoredPlant"];
                };
            };
            /** @description `If-None-Match` names the stored version: no body; `ETag` is that version. */
            304: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The path id is not an int64's canonical spelling: `id: must be an integer from -9223372036854775808 to 9223372036854775807`; or `If-Match` or `If-None-Match` is no list of entity tags. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id: must be an integer from -9223372036854775808 to 9223372036854775807"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Unauthorized"}` when the request has no `Authorization` header, or an empty one (the authorizer is not called). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unauthorized"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The token is valid but lacks the scope `plants:read`. The message says which.
             *
             *     From the gateway (GatewayMessage): `{"message":"Forbidden"}` when the authorizer refused the token (malformed, unknown, expired or revoked).
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description No plant has this id: `no plant with id N`. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 9007199254740993"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `If-Match` names none of the plant's versions: `plant N is at version V`, and `ETag` is the stored version. */
            412: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 9007199254740993 is at version 2"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Request Entity Too Large"}` when the request is larger than the gateway's 10 MB, or the event it makes larger than Lambda's 6 MB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Entity Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Too Many Requests"}` when the stage is throttling requests, or has too many in flight. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too Many Requests"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Header Fields Too Large"}` when the request line and headers are larger than 10,240 bytes. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Header Fields Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).
             *
             *     From the gateway (GatewayMessage): `{"message":"Internal Server Error"}` when the authorizer or the function failed, timed out, was throttled or answered something malformed.
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The store is throttled or unreachable after retries. Nothing was written; retry after `Retry-After` seconds.
             *
             *     From the gateway (GatewayMessage): `{"message":"Service Unavailable"}` when the function did not answer within 30 s.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (1). Set on the function's 503 (Error body); the gateway's own 503 has none. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
        };
    };
    updatePlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Apply only if the plant is at one of these versions: `*` (any version: the plant exists) or a comma-separated list of at most 20 entity tags from `ETag`, e.g. `"3"`, compared strongly (a weak tag `W/"3"` never matches). Otherwise 412 and nothing changes. A value that is no list of entity tags is 400. Without it the request applies to whatever version is stored, still atomically. */
                "If-Match"?: string;
                /** @description Apply only if the plant is at none of these versions: a comma-separated list of entity tags from `ETag` (compared weakly), or `*`, which no plant that exists passes (412: a change never creates a plant, so `*` only ever refuses). */
                "If-None-Match"?: string;
            };
            path: {
                /** @description Identification number of the plant: the canonical decimal spelling of an int64 (`0`, `42`, `-7`; no `+`, no leading zeros, no exponent, no fraction), after percent-decoding. */
                id: bigint;
            };
            cookie?: never;
        };
        /** @description The plant's new members. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Monstera",
                 *       "tag": "aroid"
                 *     }
                 */
                "application/json": components["schemas"]["PlantReplacement"];
            };
        };
        responses: {
            /** @description The plant after the change (or as stored, when the change changed nothing), to a token with `plants:read`: `id` with every digit, `tag` only if the plant has one. `ETag` is its version. */
            200: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9007199254740993",
                     *       "name": "Monstera",
                     *       "tag": "aroid"
                     *     }
                     */
                    "application/json": components["schemas"]["StoredPlant"];
                };
            };
            /** @description The change was made (or changed nothing), for a token with `plants:write` but not `plants:read`: no body, never a stored member. `ETag` is the version. */
            204: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The path id is not an int64's canonical spelling (`id: must be an integer from -9223372036854775808 to 9223372036854775807`), `If-Match` or `If-None-Match` is no list of entity tags, or the body is not JSON, not an object, repeats a member, breaks a field rule or names another id. The message names every offending field and its rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Unauthorized"}` when the request has no `Authorization` header, or an empty one (the authorizer is not called). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unauthorized"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The token is valid but lacks the scope `plants:write`, or was made before 1.2.0, when `plants:write` did not cover this operation (`the token was made before 1.2.0, when its scope plants:write did not cover this operation; make a new token for it`): a new token does. The message says which.
             *
             *     From the gateway (GatewayMessage): `{"message":"Forbidden"}` when the authorizer refused the token (malformed, unknown, expired or revoked).
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description No plant has this id: `no plant with id N`. A change never creates a plant (POST does). Preconditions count only for a plant that is there, so this comes before 412. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 9007199254740993"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `If-Match` names none of the plant's versions, or `If-None-Match` names its version (`*`: any): `plant N is at version V`, and `ETag` is the stored version. Nothing changed. Read the plant again, apply your change to it, and send it with the new `ETag`. */
            412: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 9007199254740993 is at version 2"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description From the function (Error): The body is larger than 262144 bytes (256 KiB).
             *
             *     From the gateway (GatewayMessage): `{"message":"Request Entity Too Large"}` when the request is larger than the gateway's 10 MB, or the event it makes larger than Lambda's 6 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description The content type is not JSON (`application/json` or `application/*+json`), or is a patch document (`application/json-patch+json`, `application/merge-patch+json`: use PATCH). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "content-type text/plain is not accepted; send application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Too Many Requests"}` when the stage is throttling requests, or has too many in flight. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too Many Requests"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Header Fields Too Large"}` when the request line and headers are larger than 10,240 bytes. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Header Fields Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).
             *
             *     From the gateway (GatewayMessage): `{"message":"Internal Server Error"}` when the authorizer or the function failed, timed out, was throttled or answered something malformed.
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The store is throttled or unreachable after retries, and nothing was written; or the store did not answer whether the write was made, and reading the plant did not tell: then it may have been made (and written over since), and may still be made within seconds. Retry after `Retry-After` seconds; repeat a change with `If-Match`, after reading the plant to see whether it is there.
             *
             *     From the gateway (GatewayMessage): `{"message":"Service Unavailable"}` when the function did not answer within 30 s.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (1). Set on the function's 503 (Error body); the gateway's own 503 has none. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
        };
    };
    deletePlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Apply only if the plant is at one of these versions: `*` (any version: the plant exists) or a comma-separated list of at most 20 entity tags from `ETag`, e.g. `"3"`, compared strongly (a weak tag `W/"3"` never matches). Otherwise 412 and nothing changes. A value that is no list of entity tags is 400. Without it the request applies to whatever version is stored, still atomically. */
                "If-Match"?: string;
                /** @description Apply only if the plant is at none of these versions: a comma-separated list of entity tags from `ETag` (compared weakly), or `*`, which no plant that exists passes (412: a change never creates a plant, so `*` only ever refuses). */
                "If-None-Match"?: string;
            };
            path: {
                /** @description Identification number of the plant: the canonical decimal spelling of an int64 (`0`, `42`, `-7`; no `+`, no leading zeros, no exponent, no fraction), after percent-decoding. */
                id: bigint;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plant was deleted. No body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The path id is not an int64's canonical spelling: `id: must be an integer from -9223372036854775808 to 9223372036854775807`; or `If-Match` or `If-None-Match` is no list of entity tags. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id: must be an integer from -9223372036854775808 to 9223372036854775807"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Unauthorized"}` when the request has no `Authorization` header, or an empty one (the authorizer is not called). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unauthorized"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The token is valid but lacks the scope `plants:delete`. The message says which.
             *
             *     From the gateway (GatewayMessage): `{"message":"Forbidden"}` when the authorizer refused the token (malformed, unknown, expired or revoked).
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description No plant had this id: `no plant with id N`. Nothing was deleted. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 9007199254740993"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `If-Match` names none of the plant's versions, or `If-None-Match` names its version (`*`: any): `plant N is at version V`, and `ETag` is the stored version. Nothing changed. Read the plant again, apply your change to it, and send it with the new `ETag`. */
            412: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 9007199254740993 is at version 2"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Request Entity Too Large"}` when the request is larger than the gateway's 10 MB, or the event it makes larger than Lambda's 6 MB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Entity Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Too Many Requests"}` when the stage is throttling requests, or has too many in flight. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too Many Requests"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Header Fields Too Large"}` when the request line and headers are larger than 10,240 bytes. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Header Fields Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).
             *
             *     From the gateway (GatewayMessage): `{"message":"Internal Server Error"}` when the authorizer or the function failed, timed out, was throttled or answered something malformed.
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The store is throttled or unreachable after retries, and nothing was written; or the store did not answer whether the write was made, and reading the plant did not tell: then it may have been made (and written over since), and may still be made within seconds. Retry after `Retry-After` seconds; repeat a change with `If-Match`, after reading the plant to see whether it is there.
             *
             *     From the gateway (GatewayMessage): `{"message":"Service Unavailable"}` when the function did not answer within 30 s.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (1). Set on the function's 503 (Error body); the gateway's own 503 has none. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
        };
    };
    patchPlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Apply only if the plant is at one of these versions: `*` (any version: the plant exists) or a comma-separated list of at most 20 entity tags from `ETag`, e.g. `"3"`, compared strongly (a weak tag `W/"3"` never matches). Otherwise 412 and nothing changes. A value that is no list of entity tags is 400. Without it the request applies to whatever version is stored, still atomically. */
                "If-Match"?: string;
                /** @description Apply only if the plant is at none of these versions: a comma-separated list of entity tags from `ETag` (compared weakly), or `*`, which no plant that exists passes (412: a change never creates a plant, so `*` only ever refuses). */
                "If-None-Match"?: string;
            };
            path: {
                /** @description Identification number of the plant: the canonical decimal spelling of an int64 (`0`, `42`, `-7`; no `+`, no leading zeros, no exponent, no fraction), after percent-decoding. */
                id: bigint;
            };
            cookie?: never;
        };
        /** @description The merge patch. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "tag": "aroid"
                 *     }
                 */
                "application/merge-patch+json": components["schemas"]["PlantPatch"];
                /**
                 * @example {
                 *       "tag": "aroid"
                 *     }
                 */
                "application/json": components["schemas"]["PlantPatch"];
            };
        };
        responses: {
            /** @description The plant after the change (or as stored, when the change changed nothing), to a token with `plants:read`: `id` with every digit, `tag` only if the plant has one. `ETag` is its version. */
            200: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9007199254740993",
                     *       "name": "Monstera",
                     *       "tag": "aroid"
                     *     }
                     */
                    "application/json": components["schemas"]["StoredPlant"];
                };
            };
            /** @description The change was made (or changed nothing), for a token with `plants:write` but not `plants:read`: no body, never a stored member. `ETag` is the version. */
            204: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The path id is not an int64's canonical spelling (`id: must be an integer from -9223372036854775808 to 9223372036854775807`), `If-Match` or `If-None-Match` is no list of entity tags, or the body is not JSON, not an object, repeats a member, breaks a field rule, removes `name` or names another id. The message names every offending field and its rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name: must be a string"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Unauthorized"}` when the request has no `Authorization` header, or an empty one (the authorizer is not called). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unauthorized"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The token is valid but lacks the scope `plants:write`, or was made before 1.2.0, when `plants:write` did not cover this operation (`the token was made before 1.2.0, when its scope plants:write did not cover this operation; make a new token for it`): a new token does. The message says which.
             *
             *     From the gateway (GatewayMessage): `{"message":"Forbidden"}` when the authorizer refused the token (malformed, unknown, expired or revoked).
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description No plant has this id: `no plant with id N`. A change never creates a plant (POST does). Preconditions count only for a plant that is there, so this comes before 412. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 9007199254740993"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `If-Match` names none of the plant's versions, or `If-None-Match` names its version (`*`: any): `plant N is at version V`, and `ETag` is the stored version. Nothing changed. Read the plant again, apply your change to it, and send it with the new `ETag`. */
            412: {
                headers: {
                    /** @description The plant's version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion's version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 9007199254740993 is at version 2"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description From the function (Error): The body is larger than 262144 bytes (256 KiB).
             *
             *     From the gateway (GatewayMessage): `{"message":"Request Entity Too Large"}` when the request is larger than the gateway's 10 MB, or the event it makes larger than Lambda's 6 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /** @description The content type is neither `application/merge-patch+json` nor `application/json` (JSON Patch, `application/json-patch+json`, is not supported). `Accept-Patch` names the patch format taken. */
            415: {
                headers: {
                    /** @description The patch format PATCH takes (RFC 5789 section 3.1). */
                    "Accept-Patch"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "content-type text/plain is not accepted; send application/merge-patch+json or application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description From the gateway: `{"message":"Too Many Requests"}` when the stage is throttling requests, or has too many in flight. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too Many Requests"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /** @description From the gateway: `{"message":"Request Header Fields Too Large"}` when the request line and headers are larger than 10,240 bytes. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Request Header Fields Too Large"
                     *     }
                     */
                    "application/json": components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).
             *
             *     From the gateway (GatewayMessage): `{"message":"Internal Server Error"}` when the authorizer or the function failed, timed out, was throttled or answered something malformed.
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
            /**
             * @description From the function (Error): The store is throttled or unreachable after retries, and nothing was written; or the store did not answer whether the write was made, and reading the plant did not tell: then it may have been made (and written over since), and may still be made within seconds. Retry after `Retry-After` seconds; repeat a change with `If-Match`, after reading the plant to see whether it is there.
             *
             *     From the gateway (GatewayMessage): `{"message":"Service Unavailable"}` when the function did not answer within 30 s.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (1). Set on the function's 503 (Error body); the gateway's own 503 has none. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
                };
            };
        };
    };
    newPlant: {
        parameters: {
            query?: never;
            header: {
                /** @description The same on every attempt of one event (a plant created, or one version of it changed or deleted) to one subscriber, and when it is replayed; unique otherwise: the key to deduplicate by. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; part of the signed content. */
                "webhook-timestamp": string;
                /** @description `v1,` and the base64 of HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>"), the key being the bytes after `whsec_` in the secret. */
                "webhook-signature": string;
                /** @description Which attempt this is, from 1 (to 13 on the schedule; more when short `Retry-After`s leave time before the horizon). Informational: not signed, so never trusted for anything but logs. */
                "webhook-attempt"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The plant as stored: `id` with every digit (never through a float64), `name`, and `tag` only if set; nothing else. A subscriber that chose more events than newPlant receives NewPlantEvent instead (`#/components/schemas/NewPlantEvent`): the same plant with `type`, `createdAt` and `version`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description Gone: the subscriber is disabled at once and receives nothing more; this delivery is not retried but kept: `npm run webhook -- enable <id>` turns the subscriber back on and delivers it, with every plant stored while it was disabled, each with the `webhook-id` it would have had. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Too many requests: retried after `Retry-After` (or the schedule's next step without one), and the subscriber's deliveries slow down (its rate is halved, at least 1 a minute, and comes back as 2xx answers arrive). Counts as a failed attempt. */
            429: {
                headers: {
                    /** @description When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unavailable: retried after `Retry-After` (or the schedule's next step without one). Counts as a failed attempt. */
            503: {
                headers: {
                    /** @description When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: this delivery is done, and the subscriber's run of failures ends. The body of the answer is ignored (at most 4 KB is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (502 and 504 also slow the subscriber down, as a timeout does), no answer within 10 s, or a failed connection: retried on the schedule, then dead-lettered. A subscriber whose every attempt fails for 5 days is disabled as a 410 disables it. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The same on every attempt of one event (a plant created, or one version of it changed or deleted) to one subscriber, and when it is replayed; unique otherwise: the key to deduplicate by. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; part of the signed content. */
                "webhook-timestamp": string;
                /** @description `v1,` and the base64 of HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>"), the key being the bytes after `whsec_` in the secret. */
                "webhook-signature": string;
                /** @description Which attempt this is, from 1 (to 13 on the schedule; more when short `Retry-After`s leave time before the horizon). Informational: not signed, so never trusted for anything but logs. */
                "webhook-attempt"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The plant after the change: `id` with every digit, `name`, and `tag` only if set, `type`, `createdAt` and its new `version`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["PlantUpdatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscriber is disabled at once and receives nothing more; this delivery is not retried but kept: `npm run webhook -- enable <id>` turns the subscriber back on and delivers it, with every plant stored while it was disabled, each with the `webhook-id` it would have had. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Too many requests: retried after `Retry-After` (or the schedule's next step without one), and the subscriber's deliveries slow down (its rate is halved, at least 1 a minute, and comes back as 2xx answers arrive). Counts as a failed attempt. */
            429: {
                headers: {
                    /** @description When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unavailable: retried after `Retry-After` (or the schedule's next step without one). Counts as a failed attempt. */
            503: {
                headers: {
                    /** @description When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: this delivery is done, and the subscriber's run of failures ends. The body of the answer is ignored (at most 4 KB is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (502 and 504 also slow the subscriber down, as a timeout does), no answer within 10 s, or a failed connection: retried on the schedule, then dead-lettered. A subscriber whose every attempt fails for 5 days is disabled as a 410 disables it. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantDeleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The same on every attempt of one event (a plant created, or one version of it changed or deleted) to one subscriber, and when it is replayed; unique otherwise: the key to deduplicate by. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; part of the signed content. */
                "webhook-timestamp": string;
                /** @description `v1,` and the base64 of HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>"), the key being the bytes after `whsec_` in the secret. */
                "webhook-signature": string;
                /** @description Which attempt this is, from 1 (to 13 on the schedule; more when short `Retry-After`s leave time before the horizon). Informational: not signed, so never trusted for anything but logs. */
                "webhook-attempt"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The id deleted, with every digit; `type`, `createdAt` and `version`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["PlantDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscriber is disabled at once and receives nothing more; this delivery is not retried but kept: `npm run webhook -- enable <id>` turns the subscriber back on and delivers it, with every plant stored while it was disabled, each with the `webhook-id` it would have had. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Too many requests: retried after `Retry-After` (or the schedule's next step without one), and the subscriber's deliveries slow down (its rate is halved, at least 1 a minute, and comes back as 2xx answers arrive). Counts as a failed attempt. */
            429: {
                headers: {
                    /** @description When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unavailable: retried after `Retry-After` (or the schedule's next step without one). Counts as a failed attempt. */
            503: {
                headers: {
                    /** @description When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: this delivery is done, and the subscriber's run of failures ends. The body of the answer is ignored (at most 4 KB is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (502 and 504 also slow the subscriber down, as a timeout does), no answer within 10 s, or a failed connection: retried on the schedule, then dead-lettered. A subscriber whose every attempt fails for 5 days is disabled as a 410 disables it. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** The members of NewPlant, in the document's order: what `createPlant` sends. */
export const NEW_PLANT_MEMBERS = ["id","name","tag"] as const satisfies readonly (keyof components['schemas']['NewPlant'])[];

/**
 * Where each answer holds an int64 (`format: int64`), by path, method and status: the client
 * reads a number there as a `bigint` with every digit, and every other number as a `number`.
 */
export const INT64_ANSWERS: Int64Answers = {"/plants":{"get":{"200":{"members":{"plants":{"items":{"members":{"id":{"int64":true}}}}}}}},"/plants/{id}":{"get":{"200":{"members":{"id":{"int64":true}}}},"put":{"200":{"members":{"id":{"int64":true}}}},"patch":{"200":{"members":{"id":{"int64":true}}}}}};

/** Where a webhook body (any event's) holds an int64: what `parseExact` reads by default. */
export const INT64_WEBHOOKS: Int64Locations = {"members":{"id":{"int64":true}}};
