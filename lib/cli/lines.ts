/**
 * A line writer for a process that logs in bursts (`npm start`: each request's function lines,
 * START, END and REPORT): the lines of one turn of the event loop go to the stream in one write,
 * not one each. Each write is a system call that wakes the reader. Lines still waiting when the
 * process exits (`process.exit`, an uncaught exception, the loop's end) are written then, after
 * anything written to the other stream in that turn; a kill loses them, one turn's at most.
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
