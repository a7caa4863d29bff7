#ifndef CITYTWIN_CSPATIALITE_SHIM_H
#define CITYTWIN_CSPATIALITE_SHIM_H
/* sqlite3.h must come before spatialite.h, which uses its types. */
#include <sqlite3.h>
#include <spatialite.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import. */
static inline sqlite3_destructor_type citytwin_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/* sqlite3_db_config is variadic: expose the one call we need. */
static inline int citytwin_sqlite_enable_load_extension(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, on, (int *)0);
}
#endif
