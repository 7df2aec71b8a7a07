#!/usr/bin/env python3
"""Generate small iPhone backups of every era under SampleMedia/Backups/, and their facts.

Each backup holds real media from SampleMedia (a PNG, a WAV, an Ogg recording, a text note, a
plist) under the domains and paths a phone uses, with Info.plist, Manifest.plist and
Status.plist as iTunes and Finder write them:

  manifest-db            iOS 17: Manifest.db (SQLite, NSKeyedArchiver MBFile records), XX/fileID
  manifest-db-encrypted  the same, encrypted (keybag with DPSL/DPIC, ManifestKey)
  mbdb                   iOS 9: Manifest.mbdb, files stored flat by fileID
  mbdb-encrypted         the same, encrypted (keybag with SALT/ITER only)
  mdinfo                 iTunes 9: ID.mdinfo + ID.mddata
  mdinfo-encrypted       the same, encrypted as iTunes 8.2-9 did for iPhone OS 3 (Manifest.plist
                         AuthData; each Metadata and mddata an encrypted blob with its own key)
  mdbackup               iTunes 7/8: ID.mdbackup (one plist per file, data inside)

Encrypted backups use the test password below and low iteration counts, so tests run fast;
every key, salt and UUID comes from a fixed seed, so the output is the same on every run.
The encrypting side uses PyPI's `cryptography` (this is the generator, not shelf).

The facts (files, sizes, SHA-256, fileIDs, device, password) go to
Tests/Fixtures/sample-backups.json. Functions here are also imported by the tests' hostile-
variant builders (`python3 scripts/make-backups.py --era ERA --out DIR [--hostile CASE]`).
"""

import argparse
import hashlib
import json
import os
import plistlib
import shutil
import sqlite3
import struct
import sys
import tempfile

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "SampleMedia")
PASSWORD = "shelf-test-password"
ITERATIONS = 10  # SHA-1 rounds (ITER); real backups use 10,000
SECOND_ITERATIONS = 10  # SHA-256 rounds (DPIC); real backups use 10,000,000
APP = "com.example.notes"
# 2024-05-01 09:30:00 UTC
BACKUP_TIME = 1714555800
APPLE_EPOCH = 978307200

# (domain, relative path, SampleMedia source, protection class)
FILES = [
    ("CameraRollDomain", "Media/DCIM/100APPLE/IMG_0001.PNG", "Documents/gradient-rgba.png", 3),
    ("MediaDomain", "Media/Recordings/20240501 093000.wav", "Documents/tone-440-mono.wav", 3),
    ("HomeDomain", "Library/Voicemail/1.ogg", "Documents/sweep-stereo.ogg", 1),
    ("AppDomain-" + APP, "Documents/welcome.txt", "Documents/Notes/welcome-utf8.txt", 3),
    ("AppDomain-" + APP, "Library/Preferences/com.example.notes.plist", "Documents/settings.plist", 4),
]
# Folders recorded in the manifest eras (domain roots have an empty path).
FOLDERS = [
    ("CameraRollDomain", ""),
    ("CameraRollDomain", "Media"),
    ("CameraRollDomain", "Media/DCIM"),
    ("CameraRollDomain", "Media/DCIM/100APPLE"),
    ("MediaDomain", ""),
    ("MediaDomain", "Media"),
    ("MediaDomain", "Media/Recordings"),
    ("HomeDomain", ""),
    ("HomeDomain", "Library"),
    ("HomeDomain", "Library/Voicemail"),
    ("AppDomain-" + APP, ""),
    ("AppDomain-" + APP, "Documents"),
    ("AppDomain-" + APP, "Library"),
    ("AppDomain-" + APP, "Library/Preferences"),
]
# A link inside its own domain (iOS keeps a few such links).
LINKS = [("HomeDomain", "Library/Voicemail/latest.ogg", "1.ogg")]

ERAS = {
    "manifest-db": dict(format="manifest-db", ios="17.5", product="iPhone15,2", encrypted=False),
    "manifest-db-encrypted": dict(format="manifest-db", ios="17.5", product="iPhone15,2", encrypted=True),
    "mbdb": dict(format="mbdb", ios="9.3.5", product="iPhone8,1", encrypted=False),
    "mbdb-encrypted": dict(format="mbdb", ios="9.3.5", product="iPhone8,1", encrypted=True),
    "mdinfo": dict(format="mdinfo", ios="3.1.3", product="iPhone2,1", encrypted=False),
    "mdinfo-encrypted": dict(format="mdinfo", ios="3.1.3", product="iPhone2,1", encrypted=True),
    "mdbackup": dict(format="mdbackup", ios="2.2.1", product="iPhone1,2", encrypted=False),
}


def seeded(label, length):
    """Deterministic bytes for keys, salts and UUIDs (test data, not secrets)."""
    blocks = (length + 31) // 32
    return b"".join(hashlib.sha256(f"shelf-backup:{label}:{n}".encode()).digest() for n in range(blocks))[:length]


def file_id(domain, path):
    return hashlib.sha1(f"{domain}-{path}".encode()).hexdigest()


# A video-sized file for tests of reading in chunks (--large): 2.5 MiB and 7 bytes, so it spans
# several read chunks and ends in a partial AES block.
LARGE_SOURCE = "large:IMG_0002.MOV"
LARGE_SIZE = (5 << 19) + 7


def read_sample(source):
    if source == LARGE_SOURCE:
        return seeded("large-video", LARGE_SIZE)
    with open(os.path.join(SAMPLES, source), "rb") as fh:
        return fh.read()


def encrypt(key, data, iv=b"\0" * 16):
    padder = padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return encryptor.update(padded) + encryptor.finalize()


class LegacyAuth:
    """iPhone OS 3's backup encryption (iTunes 8.2-9), as the iphone-dataprotection project's
    backups/backup3.py reads it. Manifest.plist's AuthData is an 8-byte salt, a 16-byte IV and,
    AES-256-CBC with the PBKDF2-HMAC-SHA1 key of the password (2,000 rounds, a fixed count),
    the 32-byte auth key followed by its SHA-1. Each mdinfo's Metadata and each mddata is a blob:
    big-endian u16 66, u16 0x0100, a 16-byte IV, the blob's own key (32 bytes + a padding block)
    AES-256-CBC under the auth key, then the content, AES-256-CBC under the blob key (same IV)."""

    ROUNDS = 2000

    def __init__(self, name):
        self.name = name
        self.auth_key = seeded(name + ":auth-key", 32)
        salt, iv = seeded(name + ":auth-salt", 8), seeded(name + ":auth-iv", 16)
        password_key = hashlib.pbkdf2_hmac("sha1", PASSWORD.encode(), salt, self.ROUNDS, 32)
        self.auth_data = salt + iv + encrypt(password_key, self.auth_key + hashlib.sha1(self.auth_key).digest(), iv)

    def blob(self, label, data):
        iv = seeded(f"{self.name}:blob-iv:{label}", 16)
        key = seeded(f"{self.name}:blob-key:{label}", 32)
        return struct.pack(">HH", 66, 0x0100) + iv + encrypt(self.auth_key, key, iv) + encrypt(key, data, iv)


class Keybag:
    """A backup keybag: password-wrapped class keys, as Manifest.plist's BackupKeyBag."""

    CLASSES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

    def __init__(self, name, with_second_stage, iterations=ITERATIONS, second_iterations=SECOND_ITERATIONS):
        self.salt = seeded(name + ":salt", 20)
        self.second_salt = seeded(name + ":dpsl", 20) if with_second_stage else None
        self.iterations = iterations
        self.second_iterations = second_iterations
        secret = PASSWORD.encode()
        if with_second_stage:
            secret = hashlib.pbkdf2_hmac("sha256", secret, self.second_salt, second_iterations, 32)
        if iterations > 100_000_000:
            # A hostile keybag: no reader should derive this key, so neither does the generator.
            self.password_key = seeded(name + ":unreachable", 32)
        else:
            self.password_key = hashlib.pbkdf2_hmac("sha1", secret, self.salt, iterations, 32)
        self.class_keys = {c: seeded(f"{name}:class{c}", 32) for c in self.CLASSES}
        self.name = name

    def tlv(self):
        def record(tag, value):
            if isinstance(value, int):
                value = struct.pack(">I", value)
            return tag.encode() + struct.pack(">I", len(value)) + value

        out = record("VERS", 4 if self.second_salt else 3) + record("TYPE", 1)
        out += record("UUID", seeded(self.name + ":uuid", 16)) + record("HMCK", seeded(self.name + ":hmck", 40))
        out += record("WRAP", 0) + record("SALT", self.salt) + record("ITER", self.iterations)
        if self.second_salt:
            out += record("DPWT", 1) + record("DPIC", self.second_iterations) + record("DPSL", self.second_salt)
        for c in self.CLASSES:
            out += record("UUID", seeded(f"{self.name}:uuid{c}", 16)) + record("CLAS", c) + record("WRAP", 3)
            out += record("KTYP", 0) + record("WPKY", aes_key_wrap(self.password_key, self.class_keys[c]))
        return out

    def wrapped_file_key(self, label, protection_class):
        """A new file key and its manifest form: 4-byte LE class + 40-byte wrapped key."""
        key = seeded(f"{self.name}:file:{label}", 32)
        wrapped = aes_key_wrap(self.class_keys[protection_class], key)
        return key, struct.pack("<I", protection_class) + wrapped


def mbfile_archive(size, mode, modified, protection_class, relative_path, inode, target=None, encryption_key=None):
    """An NSKeyedArchiver MBFile record, as Manifest.db's `file` column holds it."""
    objects = ["$null"]
    root = {
        "Size": size,
        "Mode": mode,
        "LastModified": modified,
        "LastStatusChange": modified,
        "Birth": modified,
        "InodeNumber": inode,
        "UserID": 501,
        "GroupID": 501,
        "ProtectionClass": protection_class,
        "Flags": 0,
    }
    objects.append(root)
    root["RelativePath"] = plistlib.UID(len(objects))
    objects.append(relative_path)
    if target is not None:
        root["Target"] = plistlib.UID(len(objects))
        objects.append(target)
    if encryption_key is not None:
        root["EncryptionKey"] = plistlib.UID(len(objects))
        data = {"NS.data": encryption_key}
        objects.append(data)
        data["$class"] = plistlib.UID(len(objects))
        objects.append({"$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]})
    root["$class"] = plistlib.UID(len(objects))
    objects.append({"$classname": "MBFile", "$classes": ["MBFile", "NSObject"]})
    return plistlib.dumps(
        {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": plistlib.UID(1)}, "$objects": objects},
        fmt=plistlib.FMT_BINARY,
    )


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def info_plist(era):
    return plistlib.dumps(
        {
            "Device Name": "Shelf Test iPhone",
            "Display Name": "Shelf Test iPhone",
            "Product Type": era["product"],
            "Product Version": era["ios"],
            "Last Backup Date": datetime_of(BACKUP_TIME),
            "Installed Applications": [APP],
            "Target Identifier": "00008110-000A1B2C3D4E5F60",
            "Unique Identifier": "00008110-000A1B2C3D4E5F60",
            "GUID": "5A4B3C2D1E0F",
            "IMEI": "350000000000000",
            "Serial Number": "SHELFTEST01",
            "iTunes Version": "12.13.2.3",
        }
    )


def datetime_of(seconds):
    import datetime

    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(tzinfo=None)


def manifest_plist(era, keybag=None, manifest_key=None):
    plist = {
        "Version": "10.0" if era["format"] == "manifest-db" else "9.1",
        "Date": datetime_of(BACKUP_TIME),
        "IsEncrypted": keybag is not None,
        "WasPasscodeSet": False,
        "SystemDomainsVersion": "24.0",
        "Lockdown": {
            "DeviceName": "Shelf Test iPhone",
            "ProductType": era["product"],
            "ProductVersion": era["ios"],
            "BuildVersion": "21F79",
            "UniqueDeviceID": "00008110-000A1B2C3D4E5F60",
            "SerialNumber": "SHELFTEST01",
        },
        "Applications": {APP: {"CFBundleIdentifier": APP, "CFBundleVersion": "1.0", "ContainerContentClass": "Data/Application"}},
    }
    if keybag is not None:
        plist["BackupKeyBag"] = keybag.tlv()
    if manifest_key is not None:
        plist["ManifestKey"] = manifest_key
    return plistlib.dumps(plist, fmt=plistlib.FMT_BINARY)


def status_plist(finished=True):
    return plistlib.dumps(
        {
            "IsFullBackup": False,
            "Version": "3.3",
            "UUID": "7E0F8C1A-3B2D-4C5E-9F60-1A2B3C4D5E6F",
            "Date": datetime_of(BACKUP_TIME),
            "BackupState": "new",
            "SnapshotState": "finished" if finished else "uploading",
        },
        fmt=plistlib.FMT_BINARY,
    )


# Rows of a hostile backup (tests build it in a temporary folder with --hostile unsafe-paths):
# names that try to escape the domain, and links that point out of it.
HOSTILE_FILES = [
    ("HomeDomain", "../../escape.txt", "Documents/Notes/welcome-utf8.txt", 3),
    ("HomeDomain", "/tmp/absolute.txt", "Documents/Notes/welcome-utf8.txt", 3),
    ("HomeDomain", "Library/nul\0name.txt", "Documents/Notes/welcome-utf8.txt", 3),
    ("../Outside", "Documents/outside.txt", "Documents/Notes/welcome-utf8.txt", 3),
]
HOSTILE_LINKS = [
    ("HomeDomain", "Library/Voicemail/passwd", "/etc/passwd"),
    ("HomeDomain", "Library/Voicemail/up", "../../../../../etc"),
]


def entries(files=FILES, links=LINKS):
    """Every manifest entry in a fixed order: folders, files, links."""
    rows = []
    for inode, (domain, path) in enumerate(FOLDERS, start=100):
        rows.append(dict(kind="folder", domain=domain, path=path, inode=inode))
    for inode, (domain, path, source, pclass) in enumerate(files, start=200):
        rows.append(dict(kind="file", domain=domain, path=path, data=read_sample(source), source=source,
                         pclass=pclass, inode=inode))
    for inode, (domain, path, target) in enumerate(links, start=300):
        rows.append(dict(kind="symlink", domain=domain, path=path, target=target, inode=inode))
    return rows


def modified_time(row):
    return BACKUP_TIME - 86400 + row["inode"] * 60


def build_manifest_db(out, era, rows, keybag):
    stored = {}
    db_path = os.path.join(tempfile.mkdtemp(prefix="manifest-db-"), "Manifest.db")
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)")
    db.execute("CREATE INDEX FilesDomainIdx ON Files(domain)")
    db.execute("CREATE INDEX FilesRelativePathIdx ON Files(relativePath)")
    db.execute("CREATE INDEX FilesFlagsIdx ON Files(flags)")
    db.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
    for row in rows:
        fid = row.get("file_id") or file_id(row["domain"], row["path"])
        row["file_id"] = fid
        modified = modified_time(row)
        if row["kind"] == "folder":
            blob = mbfile_archive(0, 0o40755, modified, 0, row["path"], row["inode"])
            flags = 2
        elif row["kind"] == "symlink":
            blob = mbfile_archive(0, 0o120755, modified, 0, row["path"], row["inode"], target=row["target"])
            flags = 4
        else:
            key = None
            content = row["data"]
            if keybag is not None:
                file_key, key = keybag.wrapped_file_key(fid, row["pclass"])
                content = encrypt(file_key, content)
            blob = mbfile_archive(len(row["data"]), 0o100644, modified, row["pclass"], row["path"], row["inode"],
                                  encryption_key=key)
            flags = 1
            stored[os.path.join(fid[:2], fid)] = content
        db.execute("INSERT INTO Files VALUES (?, ?, ?, ?, ?)", (fid, row["domain"], row["path"], flags, blob))
    db.commit()
    db.close()
    with open(db_path, "rb") as fh:
        database = fh.read()
    shutil.rmtree(os.path.dirname(db_path))
    manifest_key = None
    if keybag is not None:
        db_key, manifest_key = keybag.wrapped_file_key("Manifest.db", 4)
        database = encrypt(db_key, database)
    write(os.path.join(out, "Manifest.db"), database)
    for name, content in stored.items():
        write(os.path.join(out, name), content)
    write(os.path.join(out, "Manifest.plist"), manifest_plist(era, keybag, manifest_key))
    write(os.path.join(out, "Status.plist"), status_plist())


def mbdb_string(value):
    if value is None:
        return b"\xff\xff"
    if isinstance(value, str):
        value = value.encode()
    return struct.pack(">H", len(value)) + value


def build_mbdb(out, era, rows, keybag):
    records = b"mbdb\x05\x00"
    for row in rows:
        fid = row.get("file_id") or file_id(row["domain"], row["path"])
        row["file_id"] = fid
        key = None
        data_hash = None
        size = 0
        pclass = 0
        if row["kind"] == "folder":
            mode = 0o40755
        elif row["kind"] == "symlink":
            mode = 0o120755
        else:
            mode = 0o100644
            size = len(row["data"])
            pclass = row["pclass"]
            data_hash = hashlib.sha1(row["data"]).digest()
            content = row["data"]
            if keybag is not None:
                file_key, key = keybag.wrapped_file_key(fid, pclass)
                content = encrypt(file_key, content)
            write(os.path.join(out, fid), content)
        modified = modified_time(row)
        records += mbdb_string(row["domain"]) + mbdb_string(row["path"]) + mbdb_string(row.get("target"))
        records += mbdb_string(data_hash) + mbdb_string(key)
        records += struct.pack(">HQIIIII", mode, row["inode"], 501, 501, modified, modified, modified)
        records += struct.pack(">QBB", size, pclass, 0)
    write(os.path.join(out, "Manifest.mbdb"), records)
    write(os.path.join(out, "Manifest.plist"), manifest_plist(era, keybag))
    write(os.path.join(out, "Status.plist"), status_plist())


def build_mdinfo(out, era, rows, auth=None):
    if auth is not None:
        write(os.path.join(out, "Manifest.plist"), plistlib.dumps(
            {"AuthVersion": "2.0", "IsEncrypted": True, "AuthData": auth.auth_data}, fmt=plistlib.FMT_BINARY))
    for row in rows:
        if row["kind"] != "file":
            continue
        fid = file_id(row["domain"], row["path"])
        row["file_id"] = fid
        metadata = plistlib.dumps(
            {"Domain": row["domain"], "Path": row["path"], "Version": "3.0", "Greylist": False},
            fmt=plistlib.FMT_BINARY,
        )
        data = row["data"]
        info = {"Metadata": metadata, "Version": "3.0"}
        if auth is not None:
            info = {"Metadata": auth.blob(fid + ":metadata", metadata), "Version": "3.0", "IsEncrypted": True}
            data = auth.blob(fid, data)
        write(os.path.join(out, fid + ".mdinfo"), plistlib.dumps(info, fmt=plistlib.FMT_BINARY))
        write(os.path.join(out, fid + ".mddata"), data)


def build_mdbackup(out, era, rows):
    for row in rows:
        if row["kind"] != "file":
            continue
        fid = file_id(row["domain"], row["path"])
        row["file_id"] = fid
        record = {"Data": row["data"], "Path": row["path"], "Version": "2.0", "Greylist": False}
        # iTunes 7 wrote no Domain: its paths are in the home folder.
        if row["domain"] != "HomeDomain":
            record["Domain"] = row["domain"]
        write(os.path.join(out, fid + ".mdbackup"), plistlib.dumps(record, fmt=plistlib.FMT_BINARY))


def build(out, name, files=FILES, links=LINKS, keybag_options=None):
    """Builds the backup of era `name` in folder `out`; returns its rows (with fileIDs)."""
    era = ERAS[name]
    os.makedirs(out, exist_ok=True)
    rows = entries(files, links)
    keybag = None
    if era["encrypted"] and era["format"] != "mdinfo":
        keybag = Keybag(name, with_second_stage=era["format"] == "manifest-db", **(keybag_options or {}))
    write(os.path.join(out, "Info.plist"), info_plist(era))
    if era["format"] == "manifest-db":
        build_manifest_db(out, era, rows, keybag)
    elif era["format"] == "mbdb":
        build_mbdb(out, era, rows, keybag)
    elif era["format"] == "mdinfo":
        build_mdinfo(out, era, rows, LegacyAuth(name) if era["encrypted"] else None)
    else:
        build_mdbackup(out, era, rows)
    return rows


def facts(name, rows):
    era = ERAS[name]
    listed = [r for r in rows if era["format"] in ("manifest-db", "mbdb") or r["kind"] == "file"]
    return {
        "era": name,
        "format": era["format"],
        "encrypted": era["encrypted"],
        "device_name": "Shelf Test iPhone",
        "product_type": era["product"],
        "ios_version": era["ios"],
        "date": "2024-05-01T09:30:00Z",
        "finished": True if era["format"] in ("manifest-db", "mbdb") else None,
        "apps": [APP],
        "entries": [
            {
                "domain": r["domain"],
                "path": r["path"],
                "type": r["kind"],
                "file_id": r["file_id"],
                "size": len(r["data"]) if r["kind"] == "file" else 0,
                "sha256": hashlib.sha256(r["data"]).hexdigest() if r["kind"] == "file" else None,
                "source": r.get("source"),
                "target": r.get("target"),
                "protection_class": r.get("pclass") if era["format"] in ("manifest-db", "mbdb") else None,
            }
            for r in sorted(listed, key=lambda r: r["file_id"])
        ],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(SAMPLES, "Backups"))
    ap.add_argument("--facts", default=os.path.join(ROOT, "Tests", "Fixtures", "sample-backups.json"))
    ap.add_argument("--era", choices=sorted(ERAS), help="build only this era, into --out itself")
    ap.add_argument("--hostile", choices=["unsafe-paths", "absurd-iterations"],
                    help="with --era: add escaping rows, links pointing out and (Manifest.db) a row without"
                         " its record; or a keybag asking for 4e9 rounds")
    ap.add_argument("--large", metavar="COPY",
                    help="with --era: add a 2.5 MiB video, and write its content to COPY for comparison")
    args = ap.parse_args()
    if args.era:
        files, links, options = FILES, LINKS, None
        if args.hostile == "unsafe-paths":
            files, links = FILES + HOSTILE_FILES, LINKS + HOSTILE_LINKS
        elif args.hostile == "absurd-iterations":
            options = {"iterations": 4_000_000_000}
        if args.large:
            files = files + [("CameraRollDomain", "Media/DCIM/100APPLE/IMG_0002.MOV", LARGE_SOURCE, 3)]
            write(args.large, read_sample(LARGE_SOURCE))
        build(args.out, args.era, files, links, options)
        if args.hostile == "unsafe-paths" and ERAS[args.era]["format"] == "manifest-db" and not ERAS[args.era]["encrypted"]:
            # A row without its MBFile record.
            db = sqlite3.connect(os.path.join(args.out, "Manifest.db"))
            path = "Library/Voicemail/2.ogg"
            db.execute("INSERT INTO Files VALUES (?, 'HomeDomain', ?, 1, NULL)", (file_id("HomeDomain", path), path))
            db.commit()
            db.close()
        return 0
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    all_facts = {"password": PASSWORD, "generator": "scripts/make-backups.py", "backups": {}}
    for name in ERAS:
        rows = build(os.path.join(args.out, name), name)
        all_facts["backups"][name] = facts(name, rows)
    os.makedirs(os.path.dirname(args.facts), exist_ok=True)
    with open(args.facts, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(all_facts, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
