/* libpq, loaded on first use.

   Debian's libpq links Kerberos, LDAP, GnuTLS and their dependencies: linking it made every
   shelf process map and relocate them, about 3.5 MiB of resident memory, though only a
   PostgreSQL catalogue needs them. Each libpq function shelf calls is a hidden forwarder (see
   CLazyLibrary.h). */

#include <stdio.h>
#include <stdlib.h>

#pragma GCC visibility push(hidden)
#include <postgresql/libpq-fe.h>
#pragma GCC visibility pop

#include "CPostgresSupport.h"

#include "CLazyLibrary.h"

/* Every libpq function shelf calls. */
#define SHELF_PQ_FUNCTIONS(X)                                                                      \
  X(0, PQcancel)                                                                                   \
  X(0, PQclear)                                                                                    \
  X(0, PQconnectdb)                                                                                \
  X(0, PQconninfoFree)                                                                             \
  X(0, PQconninfoParse)                                                                            \
  X(0, PQerrorMessage)                                                                             \
  X(0, PQexec)                                                                                     \
  X(0, PQexecParams)                                                                               \
  X(0, PQfinish)                                                                                   \
  X(0, PQfreeCancel)                                                                               \
  X(0, PQfreemem)                                                                                  \
  X(0, PQgetCancel)                                                                                \
  X(0, PQgetResult)                                                                                \
  X(0, PQgetisnull)                                                                                \
  X(0, PQgetlength)                                                                                \
  X(0, PQgetvalue)                                                                                 \
  X(0, PQntuples)                                                                                  \
  X(0, PQprepare)                                                                                  \
  X(0, PQresultErrorField)                                                                         \
  X(0, PQresultErrorMessage)                                                                       \
  X(0, PQresultStatus)                                                                             \
  X(0, PQsendQueryParams)                                                                          \
  X(0, PQsendQueryPrepared)                                                                        \
  X(0, PQsetNoticeProcessor)                                                                       \
  X(0, PQsetSingleRowMode)                                                                         \
  X(0, PQstatus)

/* The soname of the ABI the header describes. */
static const char *const library_names[] = {"libpq.so.5"};

SHELF_LAZY_LIBRARIES(shelf_postgres_load, "libpq", SHELF_PQ_FUNCTIONS)
#define CALL SHELF_LAZY_CALL

int PQcancel(PGcancel *cancel, char *errbuf, int errbufsize) { return CALL(PQcancel)(cancel, errbuf, errbufsize); }
void PQclear(PGresult *res) { CALL(PQclear)(res); }
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
