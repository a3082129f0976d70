// settle(page): returns once the page rendered two frames. A resize's layout and the charts'
// ResizeObserver (whose redraw runs in the frame that observed it) are done then: the checks wait
// on that instead of a fixed time.
export function settle(page) {
  return page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}
