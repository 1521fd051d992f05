# make install / make uninstall: the libraries, the header, pkg-config files,
# the CLI and its man page (when build/tracediff.1 has been generated).
#
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage
#   make uninstall PREFIX=/usr/local DESTDIR=/tmp/stage
#
# Shared libraries are installed as libX.so.MAJOR.MINOR.PATCH, with the
# soname link libX.so.MAJOR and the development link libX.so.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGDIR     ?= $(LIBDIR)/pkgconfig
INSTALL    ?= install
MAN_PAGE   := $(BUILD)/tracediff.1
PC_FILES   := $(BUILD)/tracediff.pc $(BUILD)/tracediff-render.pc

.PHONY: install uninstall

# Directories under PREFIX are written relative to ${prefix}, so that
# pkg-config --define-variable=prefix=... can relocate them.
PC_REL = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# Regenerated every time: they depend on PREFIX and LIBDIR.
$(PC_FILES): $(BUILD)/%.pc: scripts/%.pc.in include/tracediff.h FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call PC_REL,$(LIBDIR))|g' \
	    -e 's|@INCLUDEDIR@|$(call PC_REL,$(INCLUDEDIR))|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

FORCE:

install: $(BIN) $(SO) $(RSO) $(LIB) $(RLIB) $(PC_FILES)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(PKGDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/tracediff
	$(INSTALL) -m 644 include/tracediff.h $(DESTDIR)$(INCLUDEDIR)/tracediff.h
	$(INSTALL) -m 644 $(LIB) $(RLIB) $(DESTDIR)$(LIBDIR)/
	for l in libtracediff libtracediff-render; do \
	    $(INSTALL) -m 755 $(BUILD)/$$l.so $(DESTDIR)$(LIBDIR)/$$l.so.$(VERSION) && \
	    ln -sf $$l.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$$l.so.$(SOVER) && \
	    ln -sf $$l.so.$(SOVER) $(DESTDIR)$(LIBDIR)/$$l.so || exit 1; \
	done
	$(INSTALL) -m 644 $(PC_FILES) $(DESTDIR)$(PKGDIR)/
	if [ -f $(MAN_PAGE) ]; then \
	    $(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 && \
	    $(INSTALL) -m 644 $(MAN_PAGE) $(DESTDIR)$(MANDIR)/man1/tracediff.1; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tracediff $(DESTDIR)$(INCLUDEDIR)/tracediff.h \
	    $(DESTDIR)$(PKGDIR)/tracediff.pc $(DESTDIR)$(PKGDIR)/tracediff-render.pc \
	    $(DESTDIR)$(MANDIR)/man1/tracediff.1
	for l in libtracediff libtracediff-render; do \
	    rm -f $(DESTDIR)$(LIBDIR)/$$l.a $(DESTDIR)$(LIBDIR)/$$l.so \
	        $(DESTDIR)$(LIBDIR)/$$l.so.$(SOVER) $(DESTDIR)$(LIBDIR)/$$l.so.$(VERSION); \
	done
