// In JGit's package so that it may replace Main's package-private exit and init: Main.exit ends
// the process with System.exit, and TextBuiltin.init writes to the process's file descriptors
// unless the command already has streams; this runs several commands in one process.
package org.eclipse.jgit.pgm;

import java.io.File;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Runs the jgit commands listed in DIR/commands (one a line, arguments separated by tabs) one
 * after the other in this JVM, each exactly as `jgit <args>` would (org.eclipse.jgit.pgm.Main
 * run), and leaves each one's stdout, stderr and exit status in DIR/out-N, DIR/err-N and
 * DIR/status-N. Starting the JVM and loading JGit once instead of once per command is the point.
 */
public class RefscopeBatch extends Main {
  /** Thrown instead of ending the process: the status the command exits with. */
  static final class Exit extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    Exit(int status) {
      super(null, null, false, false);
      this.status = status;
    }
  }

  /** Where the command being run writes (set before each command). */
  private static PrintStream cmdOut;
  private static PrintStream cmdErr;

  @Override
  void init(TextBuiltin cmd) throws java.io.IOException {
    cmd.outs = cmdOut;
    cmd.errs = cmdErr;
    super.init(cmd);
  }

  @Override
  void exit(int status, Exception why) throws Exception {
    writer.flush();
    throw new Exit(status);
  }

  public static void main(String[] argv) throws Exception {
    Path dir = Paths.get(argv[0]);
    List<String> lines = Files.readAllLines(dir.resolve("commands"), StandardCharsets.UTF_8);
    PrintStream out0 = System.out;
    PrintStream err0 = System.err;
    for (int i = 0; i < lines.size(); i++) {
      String[] args = lines.get(i).split("\t");
      int status = 0;
      try (PrintStream out = new PrintStream(new FileOutputStream(new File(dir.toFile(), "out-" + i)), true);
          PrintStream err = new PrintStream(new FileOutputStream(new File(dir.toFile(), "err-" + i)), true)) {
        System.setOut(out);
        System.setErr(err);
        cmdOut = out;
        cmdErr = err;
        try {
          new RefscopeBatch().run(args);
        } catch (Exit e) {
          status = e.status;
        }
        System.out.flush();
        System.err.flush();
      } finally {
        System.setOut(out0);
        System.setErr(err0);
      }
      Files.write(dir.resolve("status-" + i), String.valueOf(status).getBytes(StandardCharsets.UTF_8));
    }
  }
}
