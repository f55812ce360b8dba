/*
 * Prints a bcrypt hash ($2b$, cost 10) of the password read from stdin, for the
 * auth registry's htpasswd file (distribution accepts bcrypt entries only).
 * Uses libxcrypt (libcrypt-dev), which every Debian toolchain already has, so
 * the test environment does not need apache2-utils just for `htpasswd -B`.
 */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  char password[1024];
  size_t length = fread(password, 1, sizeof(password) - 1, stdin);
  password[length] = '\0';
  while (length > 0 && (password[length - 1] == '\n' || password[length - 1] == '\r')) {
    password[--length] = '\0';
  }
  if (length == 0) {
    fputs("bcrypt-hash: empty password on stdin\n", stderr);
    return 2;
  }
  char *salt = crypt_gensalt_ra("$2b$", 10, NULL, 0);
  if (salt == NULL) {
    perror("bcrypt-hash: crypt_gensalt_ra");
    return 1;
  }
  struct crypt_data data;
  memset(&data, 0, sizeof(data));
  const char *hash = crypt_r(password, salt, &data);
  free(salt);
  if (hash == NULL || hash[0] != '$') {
    fputs("bcrypt-hash: crypt_r failed\n", stderr);
    return 1;
  }
  puts(hash);
  return 0;
}
