// Entry point of the `order-intake` binary (bin/order-intake.js imports the compiled form of this file).
import { runCli } from './program.ts';

await runCli(process.argv);
