// Command values the edge writes as they are. JsonText: a value that is JSON text already, put
// into the `{"value": ...}` envelope without serializing a (large) string again (screenshots and
// PDFs are megabytes of base64). TextBody: a whole response body of another type (/metrics).

export class JsonText {
  constructor(readonly text: string) {}
}

/** A base64 string as JSON text: its alphabet needs no escaping. */
export function base64Json(base64: string): JsonText {
  return new JsonText(`"${base64}"`);
}

/** A body that is not a W3C JSON answer (metrics text, a recording's video, a probe's 503), sent as it is. */
export class TextBody {
  constructor(
    readonly contentType: string,
    readonly text: string | Buffer,
    /** More response headers (a download's file name). */
    readonly headers?: Record<string, string>,
    /** Not 200: a probe's 503 (GET /ready while the gateway takes no new sessions). */
    readonly status: 200 | 503 = 200,
  ) {}
}
