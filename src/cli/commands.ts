/**
 * Commands beyond `refs` and `analyze` (compact, convert, simulate, share, export).
 * Each returns its exit code; usage errors throw `UsageError`, bad input `FormatError`.
 */
export interface Command {
  name: string;
  usage: string;
  summary: string;
  run(argv: string[]): Promise<number> | number;
}

export const extraCommands: Command[] = [];
