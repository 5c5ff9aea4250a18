/* SPDX-License-Identifier: GPL-2.0-only */
/* watch/mail.h: a watch's reply mail over SMTP (watch/mail.c). Private
 * to the watch files. */
#ifndef KF_WATCH_MAIL_H
#define KF_WATCH_MAIL_H

#include <stddef.h>

/* Sends the mail in the file path to smtp_url (smtp:// or smtps://):
 * from the address in from, to author's and those in to (',' separated;
 * "Name <a@b>" or a@b). 0, or -1 with err ("'smtp://...': the server
 * said 550: ...") */
int watch_mail_send(const char *smtp_url, const char *from, const char *author, const char *to,
		    const char *path, long timeout_s, char *err, size_t errn);

#endif
