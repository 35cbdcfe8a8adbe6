/** Environment variables as handed in (`process.env` or a test's object), read at call time. */
export type Environment = Record<string, string | undefined>;
