/**
 * `skillgate`: command-line client of the Skillgate REST API (docs/cli.md). Connection from
 * `--url` / `SKILLGATE_URL` and `--token` / `SKILLGATE_TOKEN`; tables by default, `--json` for
 * scripts; exit codes in {@link EXIT}.
 */
import { Command, CommanderError } from "commander";
import { CliError, EXIT } from "./client.js";
import { DEFAULT_URL } from "./context.js";
import { registerOpsCommands } from "./ops-commands.js";
import { printError } from "./output.js";
import { registerSkillCommands } from "./skills-commands.js";

// A reader that went away (`skillgate executions list | head`) closes the pipe: stop quietly,
// with success, instead of a stack trace (docs/cli.md#output).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
}

const program = new Command("skillgate")
  .description(
    "Operate a Skillgate server: skills, executions, approvals, catalogs, settings, keys.",
  )
  .version("0.1.0")
  .option("--url <url>", `server URL (env SKILLGATE_URL, default ${DEFAULT_URL})`)
  .option("--token <token>", "management token or API key (env SKILLGATE_TOKEN)")
  .option("--json", "print JSON instead of tables")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

registerSkillCommands(program);
registerOpsCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (err instanceof CliError) {
    printError(err.message);
    process.exitCode = err.exitCode;
  } else {
    printError((err as Error).message ?? String(err));
    process.exitCode = EXIT.failure;
  }
}
