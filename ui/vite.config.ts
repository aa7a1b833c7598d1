import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

// `vite build` makes the app's bundle (ui/dist, embedded by Tauri): no test
// backend in it. `vite build --mode preview` makes ui/dist-preview, the same UI
// that also serves recorded answers with `?mock` (for a plain browser).
export default defineConfig(({ mode }) => ({
  plugins: [svelte(), svelteTesting()],
  // Relative asset URLs: the bundle is served by Tauri's asset protocol and by any static server.
  base: './',
  clearScreen: false,
  build: {
    outDir: mode === 'preview' ? 'dist-preview' : 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The preview's test backend carries its recording (about 1 MB).
    chunkSizeWarningLimit: mode === 'preview' ? 2000 : 500,
  },
  server: { port: 5173, strictPort: true },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['tests/setup.ts'],
    // A guard against hangs, not a speed goal: on a loaded 2-core CI machine a test rendering
    // 1,000 rows in jsdom can take longer than vitest's default 5 s of wall time. Speed goals
    // are measured in CPU time where a test states one, and in `make bench-app`.
    testTimeout: 30_000,
  },
}));
