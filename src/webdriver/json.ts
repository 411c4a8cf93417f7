// A command's value that is JSON text already: the edge writes it into the response as it is,
// instead of serializing a (large) string again. Screenshots and PDFs are megabytes of base64.

export class JsonText {
  constructor(readonly text: string) {}
}

/** A base64 string as JSON text: its alphabet needs no escaping. */
export function base64Json(base64: string): JsonText {
  return new JsonText(`"${base64}"`);
}
