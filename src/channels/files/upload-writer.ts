/**
 * The writing side of an upload: opens the spool file the tree planned (FileTree.beginUpload), takes the bytes, and
 * tells the tree how the upload ended (FileTree.endUpload), which commits a final name. It runs where the
 * protocol's connection is: in the main thread for FTP, in the SFTP thread for SFTP (sftp-thread.ts), where `end`
 * is a message to the main thread. What must stay true either way: finish() resolves only after `end` did, so an
 * upload is acknowledged only once the tree has committed it; a final name's file is deleted here when the upload
 * is cut, and handed over (not deleted) when it is done.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { SpoolWriter } from './spool.ts';
import { TreeError, writeError, type Upload, type UploadEnd, type UploadPlan } from './tree-model.ts';

async function openPlanned(plan: UploadPlan): Promise<SpoolWriter> {
  if (plan.nameRecord) await mkdir(plan.nameRecord.dir, { recursive: true, mode: 0o700 });
  const writer = await SpoolWriter.open(plan.file, plan.max, plan.mode, plan.start);
  if (plan.nameRecord) await writeFile(plan.nameRecord.file, plan.name, { encoding: 'utf8', mode: 0o600 });
  return writer;
}

/**
 * Open the planned file; `end` is called exactly once, with how the upload ended (it throws the client's refusal).
 * `progress`, for a plan with `stageBytes`, is told how much of the file is on disk in order from its start, each
 * time that grew by `stageBytes` or more: the tree copies it into the store meanwhile (upload-stager.ts). It must not
 * throw; nothing waits for it.
 */
export async function openUpload(plan: UploadPlan, end: (e: UploadEnd) => Promise<void>, progress?: (bytes: number) => void): Promise<Upload> {
  let writer: SpoolWriter;
  try {
    writer = await openPlanned(plan);
  } catch (err) {
    // The tree turns this into the refusal the client is shown (and releases what it claimed).
    await end({ kind: 'unopened', message: err instanceof Error ? err.message : String(err) });
    throw new TreeError('failure', 'impossibile aprire il file');
  }
  const step = plan.stageBytes;
  if (progress && step) {
    let told = 0;
    writer.onWritten = (bytes) => {
      if (bytes - told < step) return;
      told = bytes;
      progress(bytes);
    };
  }
  let ended = false;
  return {
    name: plan.name,
    temporary: plan.temporary,
    get bytes() {
      return writer.size;
    },
    write: (data, offset) => writer.write(data, offset).catch(writeError),
    async finish() {
      if (ended) {
        if (plan.temporary) return;
        throw new TreeError('failure', 'caricamento già concluso');
      }
      ended = true;
      try {
        // A temporary file is fsynced: it is kept for the client as it is. A final name's file is not: the store's
        // commit of its own copy (made from this file) is what makes the upload durable and what the
        // acknowledgement waits for; this file is only read back by the commit and by judging, and a crash empties
        // uploads/ (the sweeper judges from the store). The fsync wrote the file to disk a second time.
        await writer.close({ sync: plan.temporary });
      } catch (err) {
        if (!plan.temporary) await rm(writer.file, { force: true }).catch(() => undefined);
        await end({ kind: 'failed' }).catch(() => undefined);
        throw err;
      }
      // The tree owns a final name's file from here, and deletes it once it is judged.
      await end({ kind: 'done', size: writer.size, sha256: writer.sha256 });
    },
    async abort(reason) {
      if (ended) return;
      ended = true;
      if (plan.temporary) await writer.close().catch(() => undefined);
      else await writer.discard();
      await end({ kind: 'aborted', size: writer.size, reason });
    },
  };
}
