/* cli-info.c -- `tessera info`: the version, the backends found, what they drive and the
 * file each was loaded from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int cli_info(int argc, char **argv) {
  char *names = NULL;
  if (argc > 1) {
    if (!strcmp(argv[1], "--help")) {
      printf("usage: tessera info\n  prints the version, the backends found, their devices, the "
             "file each backend was loaded from and the optional features (hypre)\n");
      return CLI_OK;
    }
    return cli_usage_error("info", "unexpected argument '%s'", argv[1]);
  }
  printf("tessera %s\n", ts_version());
  const char *path = getenv("TESSERA_BACKEND_PATH");
  printf("TESSERA_BACKEND_PATH: %s\n", path ? path : "(not set)");
  int ierr = ts_backend_list(&names);
  if (ierr) return cli_fail(ierr);
  printf("backends found: %s\n", *names ? names : "(none)");
  char *save = NULL;
  for (char *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
    ts_backend b = NULL;
    if (ts_backend_open(name, &b)) printf("  %-6s cannot start: %s\n", name, ts_error_message());
    else printf("  %-6s %s\n         loaded from %s\n", name, ts_backend_description(b),
                ts_backend_path(b));
    ts_backend_destroy(&b);
  }
  free(names);
  if (*ts_hypre_version())
    printf("features: hypre %s: BoomerAMG (ts_operator_create_boomeramg) on the host; on a GPU "
           "backend each application copies its vectors to the host and back\n",
           ts_hypre_version());
  else
    printf("features: hypre: no (built without hypre: configure --with-hypre)\n");
  return CLI_OK;
}
