! nested_fortran.f90 [S1 [S2]] -- nested parallel regions (2 levels) in Fortran.
!
! gfortran -fopenmp compiles the regions to GOMP_parallel calls; the program is linked against
! LLVM's libomp (not libgomp), whose GOMP_* compatibility entry points run them.
! omp_set_dynamic(.false.), omp_set_max_active_levels(2); an outer region of S1 threads
! (default 2), in each an inner region of S2 threads (default 3). Every thread is in the inner
! region at the marker; thread k = ancestor(1) * S2 + omp_get_thread_num(). The thread with
! ancestors (0,0) writes the facts (C helper fx_f_write_facts from fixture.c) and calls the C
! function jompd_marker through ISO_C_BINDING; the others wait at the gate.
program nested_fortran
  use omp_lib
  use iso_c_binding
  implicit none

  interface
    subroutine jompd_marker() bind(C, name="jompd_marker")
    end subroutine
    subroutine fx_f_init(fixture) bind(C, name="fx_f_init")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: fixture
    end subroutine
    subroutine fx_f_thread_facts(k, role) bind(C, name="fx_f_thread_facts")
      import :: c_int, c_char
      integer(c_int), value :: k
      character(kind=c_char), dimension(*), intent(in) :: role
    end subroutine
    subroutine fx_f_put_int(key, val) bind(C, name="fx_f_put_int")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: key
      integer(c_int), value :: val
    end subroutine
    subroutine fx_f_gate_wait() bind(C, name="fx_f_gate_wait")
    end subroutine
    subroutine fx_f_gate_await(n) bind(C, name="fx_f_gate_await")
      import :: c_int
      integer(c_int), value :: n
    end subroutine
    subroutine fx_f_gate_open() bind(C, name="fx_f_gate_open")
    end subroutine
    subroutine fx_f_write_facts(marker_k) bind(C, name="fx_f_write_facts")
      import :: c_int
      integer(c_int), value :: marker_k
    end subroutine
    subroutine fx_f_fail(reason) bind(C, name="fx_f_fail")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: reason
    end subroutine
    subroutine fx_f_ok(checksum) bind(C, name="fx_f_ok")
      import :: c_long_long
      integer(c_long_long), value :: checksum
    end subroutine
  end interface

  integer :: s1, s2, total, k, nargs
  integer(c_long_long) :: total_sum, expect

  nargs = command_argument_count()
  if (nargs > 2) call usage("too many arguments")
  s1 = int_arg(1, 2)
  s2 = int_arg(2, 3)
  if (s1 * s2 > 4096) call usage("more than 4096 threads")

  call fx_f_init("nested_fortran" // c_null_char)
  ! _OPENMP of the Fortran compiler (fx_f_init recorded the C compiler's)
  call fx_f_put_int("openmp_version" // c_null_char, int(openmp_version, c_int))
  call fx_f_put_int("levels" // c_null_char, 2_c_int)
  call fx_f_put_int("expected_threads" // c_null_char, int(s1 * s2, c_int))
  total = s1 * s2
  total_sum = 0
  call omp_set_dynamic(.false.)
  call omp_set_max_active_levels(2)

  !$omp parallel num_threads(s1) shared(total_sum, s1, s2, total)
  if (omp_get_num_threads() /= s1) call fx_f_fail("outer team size differs from S1" // c_null_char)
  !$omp parallel num_threads(s2) shared(total_sum, s1, s2, total) private(k)
  if (omp_get_num_threads() /= s2) call fx_f_fail("inner team size differs from S2" // c_null_char)
  if (omp_get_level() /= 2 .or. omp_get_active_level() /= 2) &
      call fx_f_fail("not at active level 2" // c_null_char)
  k = omp_get_ancestor_thread_num(1) * s2 + omp_get_thread_num()
  if (k == 0) then
    call fx_f_thread_facts(0_c_int, "marker" // c_null_char)
    call fx_f_gate_await(int(total - 1, c_int))
    call fx_f_write_facts(0_c_int)
    call jompd_marker()
    call fx_f_gate_open()
  else
    call fx_f_thread_facts(int(k, c_int), "gate" // c_null_char)
    call fx_f_gate_wait()
  end if
  !$omp atomic
  total_sum = total_sum + k + 1
  !$omp end parallel
  !$omp end parallel

  expect = int(total, c_long_long) * (total + 1) / 2
  if (total_sum /= expect) call fx_f_fail("wrong sum" // c_null_char)
  call fx_f_ok(total_sum)

contains

  subroutine usage(why)
    character(len=*), intent(in) :: why
    write (0, '(a)') "nested_fortran: " // why
    write (0, '(a)') "usage: nested_fortran [S1 (1..256, default 2) [S2 (1..256, default 3)]]"
    stop 2
  end subroutine

  integer function int_arg(i, dflt)
    integer, intent(in) :: i, dflt
    character(len=64) :: text
    integer :: ios, v
    if (i > nargs) then
      int_arg = dflt
      return
    end if
    call get_command_argument(i, text)
    if (verify(trim(text), "0123456789") /= 0 .or. len_trim(text) == 0) &
        call usage("argument " // trim(text) // " is not a positive integer")
    read (text, *, iostat=ios) v
    if (ios /= 0 .or. v < 1 .or. v > 256) call usage("argument " // trim(text) // " out of range")
    int_arg = v
  end function

end program nested_fortran
