/**
 * Where the CLI writes. Data goes to stdout so it can be piped; everything meant for the person
 * at the terminal (logs, progress, errors) goes to stderr so it never corrupts that data.
 */
export interface CliOutput {
  /** Writes data exactly as given. */
  data(text: string): void;
  /** Writes one line for the person at the terminal. */
  log(line: string): void;
  /** Writes to stderr exactly as given (progress redraws). */
  status(text: string): void;
  /** Whether stderr is a terminal: progress lines are drawn only there. */
  readonly interactive: boolean;
}

export const processOutput: CliOutput = {
  data: (text) => void process.stdout.write(text),
  log: (line) => void process.stderr.write(line.endsWith("\n") ? line : `${line}\n`),
  status: (text) => void process.stderr.write(text),
  get interactive() {
    return process.stderr.isTTY === true;
  },
};

export function writeJson(out: CliOutput, value: unknown): void {
  out.data(`${JSON.stringify(value, null, 2)}\n`);
}
