/* MPRIS 2 over sd-bus, with libsystemd loaded on first use (see CMPRISSupport.h). */

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SD_BUS_VTABLE_START takes the address of libsystemd's sd_bus_object_vtable_format, which would
   link the library: the vtables below point at a placeholder instead, replaced by the loaded
   library's own variable before they are used (shelf_mpris_open). */
#define sd_bus_object_vtable_format shelf_mpris_vtable_format_placeholder
#include <systemd/sd-bus.h>

#include "CLazyLibrary.h"
#include "CMPRISSupport.h"

__attribute__((visibility("hidden"))) const unsigned shelf_mpris_vtable_format_placeholder = 0;

/* Every sd-bus function called here. */
#define SHELF_SDBUS_FUNCTIONS(X)                                                                   \
  X(0, sd_bus_open_user)                                                                           \
  X(0, sd_bus_request_name_async)                                                                  \
  X(0, sd_bus_add_object_vtable)                                                                   \
  X(0, sd_bus_process)                                                                             \
  X(0, sd_bus_get_fd)                                                                              \
  X(0, sd_bus_get_events)                                                                          \
  X(0, sd_bus_get_timeout)                                                                         \
  X(0, sd_bus_get_n_queued_write)                                                                  \
  X(0, sd_bus_close_unref)                                                                         \
  X(0, sd_bus_message_is_method_error)                                                             \
  X(0, sd_bus_emit_properties_changed_strv)                                                        \
  X(0, sd_bus_emit_signal)                                                                         \
  X(0, sd_bus_message_append)                                                                      \
  X(0, sd_bus_message_open_container)                                                              \
  X(0, sd_bus_message_close_container)                                                             \
  X(0, sd_bus_message_read)                                                                        \
  X(0, sd_bus_reply_method_return)                                                                 \
  X(0, sd_bus_error_set)

static const char *const library_names[] = {"libsystemd.so.0"};

SHELF_LAZY_LIBRARIES(shelf_sdbus_load, "libsystemd", SHELF_SDBUS_FUNCTIONS)
#define CALL SHELF_LAZY_CALL

static const char object_path[] = "/org/mpris/MediaPlayer2";
static const char root_interface[] = "org.mpris.MediaPlayer2";
static const char player_interface[] = "org.mpris.MediaPlayer2.Player";
static const char no_track[] = "/org/mpris/MediaPlayer2/TrackList/NoTrack";

struct shelf_mpris {
  sd_bus *bus;
  /* Written by shelf_mpris_wake (any thread) to end a wait at once. */
  int wake;
  shelf_mpris_command_handler handler;
  void *context;
  /* The names to request; `name` is set once the bus granted one. */
  char *wanted;
  char *fallback;
  char *name;
  /* Set when the bus refused both names (the serving thread may end). */
  int refused;
  /* The status the properties show, with copies of its strings. */
  shelf_mpris_status status;
  int has_status;
};

static char *copy_string(const char *text) { return text ? strdup(text) : NULL; }

static void free_strings(shelf_mpris_status *status) {
  free((char *)status->title);
  free((char *)status->artist);
  free((char *)status->album);
  status->title = status->artist = status->album = NULL;
}

static int same_string(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

/* The mpris:trackid of the current track: an object path of shelf's own (the specification
   keeps /org/mpris for itself but for NoTrack). */
static void track_id(const shelf_mpris *mpris, char *buffer, size_t size) {
  if (mpris->status.has_track) {
    snprintf(buffer, size, "/shelf/track/%llu", (unsigned long long)mpris->status.track_serial);
  } else {
    snprintf(buffer, size, "%s", no_track);
  }
}

static int can_seek(const shelf_mpris_status *status) { return status->has_track && status->length_us > 0; }

/* --- The root interface (org.mpris.MediaPlayer2). */

static int root_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
  (void)bus, (void)path, (void)interface, (void)userdata, (void)error;
  if (strcmp(property, "Identity") == 0) return CALL(sd_bus_message_append)(reply, "s", "shelf");
  if (strcmp(property, "CanQuit") == 0) return CALL(sd_bus_message_append)(reply, "b", 1);
  if (strcmp(property, "CanRaise") == 0 || strcmp(property, "HasTrackList") == 0) {
    return CALL(sd_bus_message_append)(reply, "b", 0);
  }
  /* SupportedUriSchemes, SupportedMimeTypes: shelf opens no URIs. */
  return CALL(sd_bus_message_append)(reply, "as", 0);
}

static int reply_done(sd_bus_message *message) { return CALL(sd_bus_reply_method_return)(message, ""); }

static int root_raise(sd_bus_message *message, void *userdata, sd_bus_error *error) {
  (void)userdata, (void)error;
  return reply_done(message);
}

static int root_quit(sd_bus_message *message, void *userdata, sd_bus_error *error) {
  (void)error;
  shelf_mpris *mpris = userdata;
  mpris->handler(mpris->context, SHELF_MPRIS_QUIT, 0);
  return reply_done(message);
}

static sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", root_raise, 0),
    SD_BUS_METHOD("Quit", "", "", root_quit, 0),
    SD_BUS_PROPERTY("CanQuit", "b", root_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanRaise", "b", root_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", root_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Identity", "s", root_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", root_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", root_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

/* --- The player interface (org.mpris.MediaPlayer2.Player). */

static int append_metadata(const shelf_mpris *mpris, sd_bus_message *reply) {
  const shelf_mpris_status *status = &mpris->status;
  char id[64];
  track_id(mpris, id, sizeof id);
  int r = CALL(sd_bus_message_open_container)(reply, 'a', "{sv}");
  if (r < 0) return r;
  r = CALL(sd_bus_message_append)(reply, "{sv}", "mpris:trackid", "o", id);
  if (r >= 0 && status->has_track && status->length_us > 0) {
    r = CALL(sd_bus_message_append)(reply, "{sv}", "mpris:length", "x", status->length_us);
  }
  if (r >= 0 && status->has_track && status->title) {
    r = CALL(sd_bus_message_append)(reply, "{sv}", "xesam:title", "s", status->title);
  }
  if (r >= 0 && status->has_track && status->artist) {
    r = CALL(sd_bus_message_append)(reply, "{sv}", "xesam:artist", "as", 1, status->artist);
  }
  if (r >= 0 && status->has_track && status->album) {
    r = CALL(sd_bus_message_append)(reply, "{sv}", "xesam:album", "s", status->album);
  }
  if (r < 0) return r;
  return CALL(sd_bus_message_close_container)(reply);
}

static int player_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
  (void)bus, (void)path, (void)interface, (void)error;
  const shelf_mpris *mpris = userdata;
  const shelf_mpris_status *status = &mpris->status;
  if (strcmp(property, "PlaybackStatus") == 0) {
    const char *text = !status->has_track ? "Stopped" : status->paused ? "Paused" : "Playing";
    return CALL(sd_bus_message_append)(reply, "s", text);
  }
  if (strcmp(property, "LoopStatus") == 0) {
    const char *text = status->loop == 2 ? "Playlist" : status->loop == 1 ? "Track" : "None";
    return CALL(sd_bus_message_append)(reply, "s", text);
  }
  if (strcmp(property, "Shuffle") == 0) return CALL(sd_bus_message_append)(reply, "b", status->shuffle != 0);
  if (strcmp(property, "Metadata") == 0) return append_metadata(mpris, reply);
  if (strcmp(property, "Volume") == 0) return CALL(sd_bus_message_append)(reply, "d", status->volume);
  if (strcmp(property, "Position") == 0) {
    return CALL(sd_bus_message_append)(reply, "x", status->has_track ? status->position_us : (int64_t)0);
  }
  if (strcmp(property, "CanSeek") == 0) return CALL(sd_bus_message_append)(reply, "b", can_seek(status));
  if (strcmp(property, "Rate") == 0 || strcmp(property, "MinimumRate") == 0 ||
      strcmp(property, "MaximumRate") == 0) {
    return CALL(sd_bus_message_append)(reply, "d", 1.0);
  }
  /* CanGoNext, CanGoPrevious, CanPlay, CanPause, CanControl: shelf has a playlist while it runs
     (next on the last track ends it, as the n key does). */
  return CALL(sd_bus_message_append)(reply, "b", 1);
}

static int set_volume(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *value, void *userdata, sd_bus_error *error) {
  (void)bus, (void)path, (void)interface, (void)property;
  shelf_mpris *mpris = userdata;
  double volume = 0;
  int r = CALL(sd_bus_message_read)(value, "d", &volume);
  if (r < 0) return r;
  if (isnan(volume)) {
    return CALL(sd_bus_error_set)(error, SD_BUS_ERROR_INVALID_ARGS, "The volume is not a number.");
  }
  /* The specification: below 0 is 0; shelf's software volume ends at 1 (100%). */
  volume = volume < 0 ? 0 : volume > 1 ? 1 : volume;
  mpris->handler(mpris->context, SHELF_MPRIS_SET_VOLUME, volume);
  return 1;
}

/* The methods without arguments: each is one command. */
static int simple_command(sd_bus_message *message, shelf_mpris *mpris, int command) {
  mpris->handler(mpris->context, command, 0);
  return reply_done(message);
}

static int player_next(sd_bus_message *m, void *userdata, sd_bus_error *e) {
  (void)e;
  return simple_command(m, userdata, SHELF_MPRIS_NEXT);
}
static int player_previous(sd_bus_message *m, void *userdata, sd_bus_error *e) {
  (void)e;
  return simple_command(m, userdata, SHELF_MPRIS_PREVIOUS);
}
static int player_pause(sd_bus_message *m, void *userdata, sd_bus_error *e) {
  (void)e;
  return simple_command(m, userdata, SHELF_MPRIS_PAUSE);
}
static int player_play_pause(sd_bus_message *m, void *userdata, sd_bus_error *e) {
  (void)e;
  return simple_command(m, userdata, SHELF_MPRIS_PLAY_PAUSE);
}
static int player_stop(sd_bus_message *m, void *userdata, sd_bus_error *e) {
  (void)e;
  return simple_command(m, userdata, SHELF_MPRIS_STOP);
}
static int player_play(sd_bus_message *m, void *userdata, sd_bus_error *e) {
  (void)e;
  return simple_command(m, userdata, SHELF_MPRIS_PLAY);
}

static int player_seek(sd_bus_message *message, void *userdata, sd_bus_error *error) {
  (void)error;
  shelf_mpris *mpris = userdata;
  int64_t offset = 0;
  int r = CALL(sd_bus_message_read)(message, "x", &offset);
  if (r < 0) return r;
  if (can_seek(&mpris->status)) mpris->handler(mpris->context, SHELF_MPRIS_SEEK_BY, (double)offset / 1e6);
  return reply_done(message);
}

static int player_set_position(sd_bus_message *message, void *userdata, sd_bus_error *error) {
  (void)error;
  shelf_mpris *mpris = userdata;
  const char *track = NULL;
  int64_t position = 0;
  int r = CALL(sd_bus_message_read)(message, "ox", &track, &position);
  if (r < 0) return r;
  char id[64];
  track_id(mpris, id, sizeof id);
  /* The specification: a stale track id, or a position outside the track, is ignored. */
  if (can_seek(&mpris->status) && strcmp(track, id) == 0 && position >= 0 &&
      position <= mpris->status.length_us) {
    mpris->handler(mpris->context, SHELF_MPRIS_SEEK_TO, (double)position / 1e6);
  }
  return reply_done(message);
}

static int player_open_uri(sd_bus_message *message, void *userdata, sd_bus_error *error) {
  (void)message, (void)userdata;
  return CALL(sd_bus_error_set)(error, SD_BUS_ERROR_NOT_SUPPORTED, "shelf plays only the playlist it was given.");
}

static sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", player_next, 0),
    SD_BUS_METHOD("Previous", "", "", player_previous, 0),
    SD_BUS_METHOD("Pause", "", "", player_pause, 0),
    SD_BUS_METHOD("PlayPause", "", "", player_play_pause, 0),
    SD_BUS_METHOD("Stop", "", "", player_stop, 0),
    SD_BUS_METHOD("Play", "", "", player_play, 0),
    SD_BUS_METHOD("Seek", "x", "", player_seek, 0),
    SD_BUS_METHOD("SetPosition", "ox", "", player_set_position, 0),
    SD_BUS_METHOD("OpenUri", "s", "", player_open_uri, 0),
    SD_BUS_SIGNAL("Seeked", "x", 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", player_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LoopStatus", "s", player_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Rate", "d", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Shuffle", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Metadata", "a{sv}", player_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", player_get, set_volume, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    /* Position changes all the time: clients ask for it (the specification: no signal). */
    SD_BUS_PROPERTY("Position", "x", player_get, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("MaximumRate", "d", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoNext", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoPrevious", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanPlay", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanPause", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanSeek", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanControl", "b", player_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

/* --- The connection. */

/* Points the vtables at the loaded library's format marker (once; before any is added). */
static pthread_once_t vtable_format_once = PTHREAD_ONCE_INIT;
static void set_vtable_format(void) {
  void *library = dlopen(library_names[0], RTLD_NOW | RTLD_NOLOAD);
  const unsigned *format = library ? dlsym(library, "sd_bus_object_vtable_format") : NULL;
  if (format) {
    root_vtable[0].x.start.vtable_format_reference = format;
    player_vtable[0].x.start.vtable_format_reference = format;
  }
  if (library) dlclose(library);
}

int shelf_mpris_open(shelf_mpris **out, shelf_mpris_command_handler handler, void *context) {
  *out = NULL;
  if (shelf_sdbus_load(NULL, 0) != 0) return -ELIBACC;
  pthread_once(&vtable_format_once, set_vtable_format);
  shelf_mpris *mpris = calloc(1, sizeof *mpris);
  if (!mpris) return -ENOMEM;
  mpris->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (mpris->wake < 0) {
    int error = errno;
    free(mpris);
    return -error;
  }
  /* Connecting does not wait for the bus: authentication and Hello go on in shelf_mpris_run. */
  int r = CALL(sd_bus_open_user)(&mpris->bus);
  if (r < 0) {
    close(mpris->wake);
    free(mpris);
    return r;
  }
  mpris->handler = handler;
  mpris->context = context;
  *out = mpris;
  return 0;
}

enum { NAME_PRIMARY_OWNER = 1, NAME_EXISTS = 3, NAME_ALREADY_OWNER = 4 };

static int request_name(shelf_mpris *mpris, const char *name);

/* The bus's answer to RequestName: the name is ours, or taken (then the fallback is asked
   for), or refused. */
static int name_reply(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
  (void)error;
  shelf_mpris *mpris = userdata;
  uint32_t result = 0;
  if (CALL(sd_bus_message_is_method_error)(reply, NULL) || CALL(sd_bus_message_read)(reply, "u", &result) < 0) {
    mpris->refused = 1;
    return 0;
  }
  if (result == NAME_PRIMARY_OWNER || result == NAME_ALREADY_OWNER) {
    mpris->name = mpris->wanted;
    mpris->wanted = NULL;
  } else if (result == NAME_EXISTS && mpris->fallback) {
    free(mpris->wanted);
    mpris->wanted = mpris->fallback;
    mpris->fallback = NULL;
    if (request_name(mpris, mpris->wanted) < 0) mpris->refused = 1;
  } else {
    mpris->refused = 1;
  }
  return 0;
}

static int request_name(shelf_mpris *mpris, const char *name) {
  return CALL(sd_bus_request_name_async)(mpris->bus, NULL, name, 0, name_reply, mpris);
}

int shelf_mpris_publish(shelf_mpris *mpris, const char *name, const char *fallback) {
  int r = CALL(sd_bus_add_object_vtable)(mpris->bus, NULL, object_path, root_interface, root_vtable, mpris);
  if (r < 0) return r;
  r = CALL(sd_bus_add_object_vtable)(mpris->bus, NULL, object_path, player_interface, player_vtable, mpris);
  if (r < 0) return r;
  mpris->wanted = strdup(name);
  mpris->fallback = fallback ? strdup(fallback) : NULL;
  if (!mpris->wanted || (fallback && !mpris->fallback)) return -ENOMEM;
  return request_name(mpris, name);
}

const char *shelf_mpris_name(const shelf_mpris *mpris) { return mpris->name; }

int shelf_mpris_update(shelf_mpris *mpris, const shelf_mpris_status *status) {
  shelf_mpris_status old = mpris->status;
  int had_status = mpris->has_status;
  mpris->status = *status;
  mpris->status.title = copy_string(status->title);
  mpris->status.artist = copy_string(status->artist);
  mpris->status.album = copy_string(status->album);
  mpris->has_status = 1;
  int metadata_changed = old.has_track != status->has_track || old.track_serial != status->track_serial ||
                         old.length_us != status->length_us || !same_string(old.title, status->title) ||
                         !same_string(old.artist, status->artist) || !same_string(old.album, status->album);
  int seeked = !metadata_changed && status->has_track && old.seek_serial != status->seek_serial;
  char *changed[7];
  size_t count = 0;
  if (old.has_track != status->has_track || old.paused != status->paused) changed[count++] = "PlaybackStatus";
  if (metadata_changed) changed[count++] = "Metadata";
  if (old.volume != status->volume) changed[count++] = "Volume";
  if (can_seek(&old) != can_seek(status)) changed[count++] = "CanSeek";
  if (old.shuffle != status->shuffle) changed[count++] = "Shuffle";
  if (old.loop != status->loop) changed[count++] = "LoopStatus";
  changed[count] = NULL;
  free_strings(&old);
  /* The first status is what a client reads when it first looks: nothing changed for it. */
  if (!had_status || !mpris->name) return 0;
  int r = 0;
  if (count > 0) {
    r = CALL(sd_bus_emit_properties_changed_strv)(mpris->bus, object_path, player_interface, changed);
  }
  if (r >= 0 && seeked) {
    r = CALL(sd_bus_emit_signal)(mpris->bus, object_path, player_interface, "Seeked", "x", status->position_us);
  }
  return r < 0 ? r : 0;
}

static uint64_t now_usec(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* Waits for the bus, a wake-up or `timeout_usec`, whichever comes first (sd_bus_wait, plus the
   wake-up descriptor). */
static int wait_for_bus(shelf_mpris *mpris, uint64_t timeout_usec) {
  int fd = CALL(sd_bus_get_fd)(mpris->bus);
  if (fd < 0) return fd;
  int events = CALL(sd_bus_get_events)(mpris->bus);
  if (events < 0) return events;
  uint64_t until = 0;
  if (CALL(sd_bus_get_timeout)(mpris->bus, &until) >= 0 && until != UINT64_MAX) {
    uint64_t now = now_usec();
    uint64_t left = until > now ? until - now : 0;
    if (left < timeout_usec) timeout_usec = left;
  }
  struct pollfd fds[2] = {{.fd = fd, .events = (short)events}, {.fd = mpris->wake, .events = POLLIN}};
  int r = poll(fds, 2, (int)((timeout_usec + 999) / 1000));
  if (r < 0) return errno == EINTR ? 0 : -errno;
  if (fds[1].revents & POLLIN) {
    uint64_t count;
    (void)!read(mpris->wake, &count, sizeof count);
  }
  return 0;
}

int shelf_mpris_run(shelf_mpris *mpris, uint64_t timeout_usec) {
  for (;;) {
    int r = CALL(sd_bus_process)(mpris->bus, NULL);
    if (r < 0) return r;
    if (r == 0) break;
  }
  if (mpris->refused) return -EEXIST;
  return wait_for_bus(mpris, timeout_usec);
}

void shelf_mpris_wake(shelf_mpris *mpris) {
  uint64_t one = 1;
  (void)!write(mpris->wake, &one, sizeof one);
}

void shelf_mpris_close(shelf_mpris *mpris) {
  if (!mpris) return;
  /* What is queued (the last PropertiesChanged) goes out if the bus takes it within 0.2 s: a
     bus that stopped reading must not hold up the end of shelf (sd_bus_flush would wait for it
     without a limit). Before a name was granted, nobody can be listening: nothing waits. */
  uint64_t deadline = now_usec() + 200000;
  uint64_t queued = 0;
  while (mpris->name && CALL(sd_bus_get_n_queued_write)(mpris->bus, &queued) >= 0 && queued > 0) {
    uint64_t now = now_usec();
    if (now >= deadline || CALL(sd_bus_process)(mpris->bus, NULL) < 0) break;
    if (wait_for_bus(mpris, deadline - now) < 0) break;
  }
  CALL(sd_bus_close_unref)(mpris->bus);
  close(mpris->wake);
  free_strings(&mpris->status);
  free(mpris->wanted);
  free(mpris->fallback);
  free(mpris->name);
  free(mpris);
}
