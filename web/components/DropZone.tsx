import { useEffect, useState } from 'react';

/**
 * Lets a JSON file be dropped anywhere on the page. The caller decides what
 * a file is (trace or scenario) after reading it; nothing here parses it.
 */
export function useDrop(onFile: (f: File) => void): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const hasFiles = (ev: DragEvent) => ev.dataTransfer?.types.includes('Files') === true;
    const enter = (ev: DragEvent) => {
      if (!hasFiles(ev)) return;
      depth++;
      setOver(true);
    };
    const leave = () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const overFn = (ev: DragEvent) => {
      if (hasFiles(ev)) ev.preventDefault();
    };
    const drop = (ev: DragEvent) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      depth = 0;
      setOver(false);
      const f = ev.dataTransfer?.files[0];
      if (f !== undefined) onFile(f);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overFn);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overFn);
      window.removeEventListener('drop', drop);
    };
  }, [onFile]);
  return over;
}
