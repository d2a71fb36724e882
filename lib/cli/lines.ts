/**
 * A line writer for a process that logs in bursts (`npm start`: each request's function lines,
 * START, END and REPORT): the lines of one turn of the event loop go to the stream in one write,
 * not one each. A write to a pipe, a file or a terminal is a system call that wakes the reader,
 * and synchronous on Linux. Lines still waiting when the process exits (`process.exit`, an
 * uncaught exception, the loop's end) are written then; only a kill loses them, one turn's at most.
 */
export function turnBatchedLines(stream: NodeJS.WritableStream): (line: string) => void {
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  process.on('exit', flush);
  return (line) => {
    if (pending === '') setImmediate(flush);
    pending += `${line}\n`;
  };
}
