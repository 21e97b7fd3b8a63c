// The whole store contract on SQLite in memory (one connection, no file; quick enough for one file).
import { sqliteMemory } from './backends.ts';
import { storeContract } from './contract.ts';

storeContract('sqlite (:memory:)', sqliteMemory);
