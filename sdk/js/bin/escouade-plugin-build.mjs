#!/usr/bin/env node
// Bundles an Escouade plugin for run.js: see escouade-plugin-build --help.
import { main } from "../dist/cli.js";

process.exitCode = await main(process.argv.slice(2));
