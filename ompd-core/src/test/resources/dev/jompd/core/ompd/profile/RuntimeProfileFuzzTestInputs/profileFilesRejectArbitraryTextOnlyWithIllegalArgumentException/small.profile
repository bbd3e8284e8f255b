version=1.2.3
breadcrumb.ompd_state=16 7
global.__kmp_threads=@breadcrumbs:-64,@file:4096
signature.__kmp_threads=.text 12 488b..05
