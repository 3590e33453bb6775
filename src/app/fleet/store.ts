/**
 * The fleet view's state: the scan file open (if any) and its rows. Apart from the app's store:
 * a scan file is not a repository and never goes to the engine worker; the reader (hyparquet) is
 * loaded only when one is opened.
 */
import { create } from 'zustand';
import type { FleetRow } from './scanfile.ts';

/** The most bytes read from one scan file (a million rows of JSON Lines are about 1 GB). */
export const MAX_SCAN_FILE = 1024 * 1048576;

interface FleetState {
  name: string | null;
  rows: FleetRow[] | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  open(file: Blob, name: string): Promise<void>;
  close(): void;
}

export const useFleet = create<FleetState>((set) => ({
  name: null,
  rows: null,
  status: 'idle',
  error: null,
  async open(file, name) {
    set({ name, rows: null, status: 'loading', error: null });
    try {
      if (file.size > MAX_SCAN_FILE)
        throw new Error(`${name}: offset ${MAX_SCAN_FILE}: expected a scan file of at most 1 GiB`);
      const { readScanFile } = await import('./scanfile.ts');
      const rows = await readScanFile(name, new Uint8Array(await file.arrayBuffer()));
      set({ rows, status: 'ready' });
    } catch (e) {
      set({ status: 'error', error: (e as Error).message });
    }
  },
  close() {
    set({ name: null, rows: null, status: 'idle', error: null });
  },
}));

/** Is this drop a scan result (one `.parquet`, `.jsonl` or `.ndjson` file)? */
export function isScanDrop(inputs: { path: string }[]): boolean {
  return inputs.length === 1 && /\.(?:parquet|jsonl|ndjson)$/i.test(inputs[0].path);
}
