/* libpq, loaded on first use.

   Debian's libpq links Kerberos, LDAP, GnuTLS and their dependencies: linking it made every
   shelf process map and relocate them, about 3.5 MiB of resident memory, though only a
   PostgreSQL catalogue needs them. This file defines each libpq function shelf calls, with
   libpq's own prototype (the compiler checks it against the header), as a forwarder through a
   table that `shelf_postgres_load` fills with dlopen and dlsym the first time. The forwarders
   are hidden (not exported from the executable). */

#include <stdio.h>
#include <stdlib.h>

#pragma GCC visibility push(hidden)
#include <postgresql/libpq-fe.h>
#pragma GCC visibility pop

#include "CPostgresSupport.h"

#include <dlfcn.h>
#include <pthread.h>

/* Every libpq function shelf calls. */
#define SHELF_PQ_FUNCTIONS(X)                                                                      \
  X(PQcancel)                                                                                      \
  X(PQclear)                                                                                       \
  X(PQcmdTuples)                                                                                   \
  X(PQconnectdb)                                                                                   \
  X(PQconninfoFree)                                                                                \
  X(PQconninfoParse)                                                                               \
  X(PQerrorMessage)                                                                                \
  X(PQexec)                                                                                        \
  X(PQexecParams)                                                                                  \
  X(PQfinish)                                                                                      \
  X(PQfreeCancel)                                                                                  \
  X(PQfreemem)                                                                                     \
  X(PQgetCancel)                                                                                   \
  X(PQgetResult)                                                                                   \
  X(PQgetisnull)                                                                                   \
  X(PQgetlength)                                                                                   \
  X(PQgetvalue)                                                                                    \
  X(PQnfields)                                                                                     \
  X(PQntuples)                                                                                     \
  X(PQprepare)                                                                                     \
  X(PQresultErrorField)                                                                            \
  X(PQresultErrorMessage)                                                                          \
  X(PQresultStatus)                                                                                \
  X(PQsendQueryParams)                                                                             \
  X(PQsendQueryPrepared)                                                                           \
  X(PQsetNoticeProcessor)                                                                          \
  X(PQsetSingleRowMode)                                                                            \
  X(PQstatus)

static struct {
#define SHELF_PQ_FIELD(name) __typeof__(&name) name;
  SHELF_PQ_FUNCTIONS(SHELF_PQ_FIELD)
#undef SHELF_PQ_FIELD
} table;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

/* The soname of the ABI the header describes. */
static const char library_name[] = "libpq.so.5";

static void load(void) {
  void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    snprintf(load_error, sizeof load_error, "%s", reason ? reason : library_name);
    return;
  }
#define SHELF_PQ_RESOLVE(name)                                                                     \
  table.name = (__typeof__(&name))dlsym(library, #name);                                           \
  if (!table.name) {                                                                               \
    snprintf(load_error, sizeof load_error, "%s: no function %s", library_name, #name);            \
    return;                                                                                        \
  }
  SHELF_PQ_FUNCTIONS(SHELF_PQ_RESOLVE)
#undef SHELF_PQ_RESOLVE
  loaded = 1;
}

int shelf_postgres_load(char *error, size_t size) {
  pthread_once(&load_once, load);
  if (loaded) return 0;
  if (size > 0) snprintf(error, size, "%s", load_error);
  return -1;
}

/* The table, loaded. shelf's Swift code loads libpq (and reports a failure as an error) before
   its first libpq call, so failing here means a call path skipped that step. */
#define CALL(name) (require_loaded(), table.name)
static inline void require_loaded(void) {
  pthread_once(&load_once, load);
  if (__builtin_expect(!loaded, 0)) {
    fprintf(stderr, "shelf: libpq could not be loaded: %s\n", load_error);
    abort();
  }
}

int PQcancel(PGcancel *cancel, char *errbuf, int errbufsize) { return CALL(PQcancel)(cancel, errbuf, errbufsize); }
void PQclear(PGresult *res) { CALL(PQclear)(res); }
char *PQcmdTuples(PGresult *res) { return CALL(PQcmdTuples)(res); }
PGconn *PQconnectdb(const char *conninfo) { return CALL(PQconnectdb)(conninfo); }
void PQconninfoFree(PQconninfoOption *connOptions) { CALL(PQconninfoFree)(connOptions); }
PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) {
  return CALL(PQconninfoParse)(conninfo, errmsg);
}
char *PQerrorMessage(const PGconn *conn) { return CALL(PQerrorMessage)(conn); }
PGresult *PQexec(PGconn *conn, const char *query) { return CALL(PQexec)(conn, query); }
PGresult *PQexecParams(
  PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
  const int *paramLengths, const int *paramFormats, int resultFormat) {
  return CALL(PQexecParams)(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
void PQfinish(PGconn *conn) { CALL(PQfinish)(conn); }
void PQfreeCancel(PGcancel *cancel) { CALL(PQfreeCancel)(cancel); }
void PQfreemem(void *ptr) { CALL(PQfreemem)(ptr); }
PGcancel *PQgetCancel(PGconn *conn) { return CALL(PQgetCancel)(conn); }
PGresult *PQgetResult(PGconn *conn) { return CALL(PQgetResult)(conn); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { return CALL(PQgetisnull)(res, tup_num, field_num); }
int PQgetlength(const PGresult *res, int tup_num, int field_num) { return CALL(PQgetlength)(res, tup_num, field_num); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { return CALL(PQgetvalue)(res, tup_num, field_num); }
int PQnfields(const PGresult *res) { return CALL(PQnfields)(res); }
int PQntuples(const PGresult *res) { return CALL(PQntuples)(res); }
PGresult *PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes) {
  return CALL(PQprepare)(conn, stmtName, query, nParams, paramTypes);
}
char *PQresultErrorField(const PGresult *res, int fieldcode) { return CALL(PQresultErrorField)(res, fieldcode); }
char *PQresultErrorMessage(const PGresult *res) { return CALL(PQresultErrorMessage)(res); }
ExecStatusType PQresultStatus(const PGresult *res) { return CALL(PQresultStatus)(res); }
int PQsendQueryParams(
  PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
  const int *paramLengths, const int *paramFormats, int resultFormat) {
  return CALL(PQsendQueryParams)(
    conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
int PQsendQueryPrepared(
  PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths,
  const int *paramFormats, int resultFormat) {
  return CALL(PQsendQueryPrepared)(conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat);
}
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
  return CALL(PQsetNoticeProcessor)(conn, proc, arg);
}
int PQsetSingleRowMode(PGconn *conn) { return CALL(PQsetSingleRowMode)(conn); }
ConnStatusType PQstatus(const PGconn *conn) { return CALL(PQstatus)(conn); }
