import type { Writable } from 'node:stream';

/**
 * Where log lines go, such that a log reader can never stop the service: a line is handed to the
 * stream without waiting, a destination that does not keep up holds a bounded backlog beyond which
 * lines are dropped, and one that broke (EPIPE: the reader went away) gets nothing more. Dropped lines
 * are counted for `/metrics`.
 *
 * The lines of one turn of the event loop go to the stream together, as one write, at the turn's end
 * (`setImmediate`): an access line a request costs a share of one write, not a write of its own (stdout
 * on a pipe or a file is written synchronously, one system call a write). Lines still waiting when the
 * process exits are written then; a process killed outright (SIGKILL, out of memory) loses at most the
 * lines of its last turn.
 */
export interface LogDestination {
  write(line: string): boolean;
  /** Waits until the backlog is written, the destination broke, or timeoutMs passed; never rejects. */
  flush(timeoutMs: number): Promise<void>;
}

export interface LogDestinationOptions {
  /** Bytes a slow destination may hold before new lines are dropped (default 8 MiB). */
  maxBacklogBytes?: number;
}

const DEFAULT_MAX_BACKLOG_BYTES = 8 * 1024 * 1024;

// One process, one stdout: the count is the process's, whichever destination dropped the line.
let droppedLines = 0;

/** Log lines dropped since the process started (for the `log_lines_dropped_total` metric). */
export const droppedLogLines = (): number => droppedLines;

/** Destinations holding lines of this turn: written out if the process exits before the turn ends. */
const holding = new Set<() => void>();
let exitHooked = false;
const writeHeldLines = () => {
  for (const writeOut of [...holding]) writeOut();
};

export function createLogDestination(out: Writable, options: LogDestinationOptions = {}): LogDestination {
  const maxBacklogBytes = options.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES;
  let broken = false;
  // Without a listener, an EPIPE on stdout is an uncaught exception; with one, it is a closed door.
  out.on('error', () => {
    broken = true;
  });
  const open = (): boolean => !broken && out.writable && !out.destroyed;
  /** This turn's lines, not yet handed to the stream. */
  let held: string[] = [];
  let heldBytes = 0;
  const writeOut = (): void => {
    holding.delete(writeOut);
    if (!held.length) return;
    const lines = held;
    held = [];
    heldBytes = 0;
    if (!open()) {
      droppedLines += lines.length;
      return;
    }
    out.write(lines.join(''));
  };

  return {
    write(line) {
      // Bytes and characters alike for the bound: log lines are mostly ASCII, and the bound is a rough one.
      if (!open() || out.writableLength + heldBytes > maxBacklogBytes) {
        droppedLines++;
        return true;
      }
      if (held.push(line) === 1) {
        holding.add(writeOut);
        if (!exitHooked) {
          exitHooked = true;
          process.on('exit', writeHeldLines);
        }
        setImmediate(writeOut);
      }
      heldBytes += line.length;
      return true;
    },
    async flush(timeoutMs) {
      writeOut();
      const deadline = Date.now() + timeoutMs;
      while (open() && out.writableLength > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

let stdout: LogDestination | undefined;

/**
 * The process's standard output as a log destination. Node writes to a pipe without blocking (the
 * backlog waits in the stream), to a file synchronously, and to a terminal synchronously.
 */
export function stdoutDestination(): LogDestination {
  stdout ??= createLogDestination(process.stdout);
  return stdout;
}
