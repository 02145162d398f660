import { useId } from 'react';

/** A labelled file input for JSON files; the label is the visible button, the input stays keyboard-reachable. */
export function FilePicker({ label, onFile, testId }: { label: string; onFile: (f: File) => void; testId?: string }) {
  const id = useId();
  return (
    <span className="file-picker">
      <input
        id={id}
        type="file"
        accept=".json,application/json"
        className="visually-hidden-input"
        data-testid={testId}
        onChange={(ev) => {
          const f = ev.target.files?.[0];
          if (f !== undefined) onFile(f);
          ev.target.value = '';
        }}
      />
      <label htmlFor={id} className="button-like">
        {label}
      </label>
    </span>
  );
}

/** Offers text as a file download; the text is ours (a serialized trace or scenario), never HTML. */
export function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
