/**
 * Commands beyond `refs` and `analyze` (compact, convert, simulate, share, export).
 * Each returns its exit code; usage errors throw `UsageError`, bad input `FormatError`.
 */
import { shareCommands } from './share-cmd.ts';
import { compactCommands } from './compact-cmd.ts';
import { simulateCommand } from './simulate-cmd.ts';
import { calibrateCommand } from './calibrate-cmd.ts';
export interface Command {
  name: string;
  usage: string;
  summary: string;
  run(argv: string[]): Promise<number> | number;
}

export const extraCommands: Command[] = [];
extraCommands.push(...shareCommands);
extraCommands.push(...compactCommands);
extraCommands.push(simulateCommand);
extraCommands.push(calibrateCommand);
