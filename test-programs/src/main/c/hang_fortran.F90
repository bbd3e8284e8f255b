! hang_fortran.F90 [N] -- a Fortran team hangs at a barrier for a straggler (a hang fixture: see
! FIXTURES.md, "Hang fixtures"). The .F90 suffix has gfortran run the C preprocessor (no extra
! flag), so the facts can name source lines with __LINE__.
!
! gfortran -fopenmp, linked against LLVM's libomp (as nested_fortran). One region of N threads
! (2..64, default 3): thread N-1 is stuck in the subroutine straggle (a sleep loop: "computing"
! for ever); the others wait at "!$omp barrier". The straggler waits until they are in the
! barrier's wait (C helper fx_f_hang_await), writes the facts and sleeps; the watcher thread
! calls the marker, prints JOMPD_RESULT ok and _exit(0)s.
! Facts: hang.kind=barrier-straggler, hang.barrier=explicit, hang.barrier.line, hang.straggler,
! hang.straggler.function=straggle, thread.<k>.role (barrier, straggler), thread.<k>.wait_line
! (lines of this file); k = omp_get_thread_num().
program hang_fortran
  use omp_lib
  use iso_c_binding
  implicit none

  interface
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
    subroutine fx_f_put_str(key, val) bind(C, name="fx_f_put_str")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: key, val
    end subroutine
    subroutine fx_f_thread_put_int(k, subkey, val) bind(C, name="fx_f_thread_put_int")
      import :: c_int, c_char
      integer(c_int), value :: k, val
      character(kind=c_char), dimension(*), intent(in) :: subkey
    end subroutine
    subroutine fx_f_hang_enter(slot) bind(C, name="fx_f_hang_enter")
      import :: c_int
      integer(c_int), value :: slot
    end subroutine
    subroutine fx_f_hang_await(n) bind(C, name="fx_f_hang_await")
      import :: c_int
      integer(c_int), value :: n
    end subroutine
    subroutine fx_f_hang_write_facts() bind(C, name="fx_f_hang_write_facts")
    end subroutine
    subroutine fx_f_hang_watch(n) bind(C, name="fx_f_hang_watch")
      import :: c_int
      integer(c_int), value :: n
    end subroutine
    subroutine fx_f_fail(reason) bind(C, name="fx_f_fail")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: reason
    end subroutine
  end interface

  integer :: n, k, nargs, ios
  character(len=64) :: text

  nargs = command_argument_count()
  n = 3
  if (nargs > 1) call usage("too many arguments")
  if (nargs == 1) then
    call get_command_argument(1, text)
    read (text, *, iostat=ios) n
    if (ios /= 0 .or. n < 2 .or. n > 64) call usage("N out of range")
  end if

  call fx_f_init("hang_fortran" // c_null_char)
  call fx_f_put_int("openmp_version" // c_null_char, int(openmp_version, c_int))
  call fx_f_put_str("hang.kind" // c_null_char, "barrier-straggler" // c_null_char)
  call fx_f_put_str("hang.barrier" // c_null_char, "explicit" // c_null_char)
  call fx_f_put_int("hang.straggler" // c_null_char, int(n - 1, c_int))
  call fx_f_put_str("hang.straggler.function" // c_null_char, "straggle" // c_null_char)
  call fx_f_put_str("hang.expect" // c_null_char, "the team: all threads but the last wait at the " // &
      "barrier, the last has not reached it: it is in the subroutine straggle (hang_fortran.F90)" // c_null_char)
  call fx_f_put_int("requested_threads" // c_null_char, int(n, c_int))
  call omp_set_dynamic(.false.)
  call fx_f_hang_watch(int(n, c_int))

  !$omp parallel num_threads(n) private(k) shared(n)
  if (omp_get_num_threads() /= n) call fx_f_fail("team size differs from N" // c_null_char)
  k = omp_get_thread_num()
  if (k == n - 1) then
    call straggle(k, n)
  else
    call fx_f_thread_facts(int(k, c_int), "barrier" // c_null_char)
    call fx_f_put_int("hang.barrier.line" // c_null_char, int(__LINE__ + 3, c_int))
    call fx_f_thread_put_int(int(k, c_int), "wait_line" // c_null_char, int(__LINE__ + 2, c_int))
    call fx_f_hang_enter(int(k, c_int))
    !$omp barrier
  end if
  !$omp end parallel
  call fx_f_fail("the hang ended" // c_null_char)

contains

  ! The straggler: "computes" for ever (sleeps in a loop) once the others are in the barrier.
  subroutine straggle(k, n)
    integer, intent(in) :: k, n
    call fx_f_thread_facts(int(k, c_int), "straggler" // c_null_char)
    call fx_f_thread_put_int(int(k, c_int), "wait_line" // c_null_char, int(__LINE__ + 5, c_int))
    call fx_f_hang_await(int(n - 1, c_int))
    call fx_f_hang_write_facts()
    call fx_f_hang_enter(int(n - 1, c_int))
    do
      call sleep(3600)
    end do
  end subroutine

  subroutine usage(why)
    character(len=*), intent(in) :: why
    write (0, '(a)') "hang_fortran: " // why
    write (0, '(a)') "usage: hang_fortran [N (2..64, default 3)]"
    stop 2
  end subroutine

end program hang_fortran
