// jsdom has no layout: give the virtual table's viewport a height, and Svelte's
// size bindings the ResizeObserver they expect.
class NoopResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
(globalThis as unknown as { ResizeObserver: unknown }).ResizeObserver ??= NoopResizeObserver;

export const VIEWPORT_HEIGHT = 440; // 20 rows of 22 px

Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
  configurable: true,
  get(this: HTMLElement) {
    return this.classList.contains('viewport') ? VIEWPORT_HEIGHT : 0;
  },
});

Element.prototype.scrollIntoView ??= function () {};
