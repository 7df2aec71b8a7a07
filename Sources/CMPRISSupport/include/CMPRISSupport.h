#ifndef CMPRIS_SUPPORT_H
#define CMPRIS_SUPPORT_H

/* A media player published on the D-Bus session bus as MPRIS 2 (org.mpris.MediaPlayer2 and
   org.mpris.MediaPlayer2.Player at /org/mpris/MediaPlayer2), through sd-bus.

   sd-bus's vtables are built with macros and its message calls are variadic, neither of which
   Swift can use: they stay here. libsystemd is opened with dlopen on the first use (see
   CLazyLibrary.h): linking it would map it and its six libraries (libgcrypt, liblzma, libzstd,
   liblz4, libcap, libgpg-error) into every shelf process.

   A connection is used by one thread at a time: open it, then publish, update and run it on the
   thread that serves it. */

#include <stddef.h>
#include <stdint.h>

/* What a client asked for, handed to the command handler. */
enum shelf_mpris_command {
  SHELF_MPRIS_PLAY_PAUSE = 1,
  SHELF_MPRIS_PLAY,
  SHELF_MPRIS_PAUSE,
  /* Stop (Player) and Quit (the root interface): playback ends. */
  SHELF_MPRIS_STOP,
  SHELF_MPRIS_QUIT,
  SHELF_MPRIS_NEXT,
  SHELF_MPRIS_PREVIOUS,
  /* `value`: seconds to move by (negative: back). */
  SHELF_MPRIS_SEEK_BY,
  /* `value`: the position in seconds, within the current track. */
  SHELF_MPRIS_SEEK_TO,
  /* `value`: the volume, 0...1. */
  SHELF_MPRIS_SET_VOLUME,
};

/* Called on the serving thread, from inside shelf_mpris_run, for each request. */
typedef void (*shelf_mpris_command_handler)(void *context, int command, double value);

/* What the player is doing, as the properties show it. Strings are copied; NULL is absent. */
typedef struct {
  /* 0 when no track is loaded (before the first, after the last): PlaybackStatus "Stopped". */
  int has_track;
  int paused;
  /* Changes whenever a track starts (also the same track again): the mpris:trackid. */
  uint64_t track_serial;
  const char *title;
  const char *artist;
  const char *album;
  /* Microseconds; length 0 when unknown. */
  int64_t length_us;
  int64_t position_us;
  /* Changes with every seek: the Seeked signal. */
  uint64_t seek_serial;
  /* 0...1. */
  double volume;
  int shuffle;
  /* 0: None, 1: Track, 2: Playlist (LoopStatus). */
  int loop;
} shelf_mpris_status;

typedef struct shelf_mpris shelf_mpris;

/* Connects to the session bus (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus) without
   waiting for it: 0 with the connection in `out`, or a negative errno when libsystemd cannot be
   loaded (-ELIBACC) or no bus is there. */
int shelf_mpris_open(shelf_mpris **out, shelf_mpris_command_handler handler, void *context);

/* Serves the object and asks for `name`, or `fallback` when another connection owns `name`:
   0, or a negative errno. Does not wait: the bus's answer is handled in shelf_mpris_run. */
int shelf_mpris_publish(shelf_mpris *mpris, const char *name, const char *fallback);

/* The well-known name owned, or NULL before the bus granted one. */
const char *shelf_mpris_name(const shelf_mpris *mpris);

/* Takes a new status; emits PropertiesChanged for what changed (PlaybackStatus, Metadata,
   Volume, CanSeek; never Position) and Seeked after a seek: 0, or a negative errno. */
int shelf_mpris_update(shelf_mpris *mpris, const shelf_mpris_status *status);

/* Answers every request queued, then waits up to `timeout_usec` for more (or for
   shelf_mpris_wake): 0, or a negative errno when the connection is lost or both names were
   refused. */
int shelf_mpris_run(shelf_mpris *mpris, uint64_t timeout_usec);

/* Ends the current or next wait of shelf_mpris_run at once; callable from any thread. */
void shelf_mpris_wake(shelf_mpris *mpris);

/* Sends what is queued (waiting at most 0.2 s for the bus to take it) and closes the
   connection, releasing the name. */
void shelf_mpris_close(shelf_mpris *mpris);

#endif
