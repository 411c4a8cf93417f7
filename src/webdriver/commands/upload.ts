// Placeholder: filled in by its chapter's implementation.
export {};
