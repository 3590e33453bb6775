/**
 * Downloads made in the page (blob URLs, nothing leaves the browser) and the PNG of an SVG.
 */

/** Save `data` as `filename` through a temporary blob URL. */
export function downloadBlob(data: Blob, filename: string): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The download has started by then; the URL is only needed until the browser read the blob.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Save text (UTF-8). */
export function downloadText(text: string, filename: string, mime: string): void {
  downloadBlob(new Blob([text], { type: `${mime};charset=utf-8` }), filename);
}

/**
 * Draw an SVG document on a canvas and return it as a PNG (`scale` × its size, for sharp text).
 * The SVG is loaded from a blob URL as an image, so nothing in it can run or fetch anything.
 */
export async function svgToPng(svg: string, width: number, height: number, scale = 2): Promise<Blob> {
  // Browsers cap a canvas at about 32,767 pixels a side and 268 million pixels: scale down to fit.
  scale = Math.min(scale, 16_000 / width, 16_000 / height, Math.sqrt(100e6 / (width * height)));
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image(width, height);
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas in this browser');
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => {
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas gave no PNG'))), 'image/png');
    });
  } finally {
    URL.revokeObjectURL(url);
  }
}
