obj-y += fork.o \
	exit.o
obj-$(CONFIG_A) += a/
foo-y := x.o $(addprefix s/,p.o q.o)
ifeq ($(CONFIG_M),m)
obj-m += foo.o
else ifdef CONFIG_A
obj-y += $(filter %.o,a.o b.c)
endif
$(obj)/x.h: y
	cmd
