! poisson: implicit heat equation on a 1-D ring of ranks, solved every
! time step with a preconditioned conjugate-gradient method (MPI, Fortran 90).
!
! Planted bugs (steps and iterations counted from 1):
!   --skip-call R S I   rank R skips the preconditioner (ops_mod::precondition) in CG iteration I of step S
!   --short-loop R S I  rank R's preconditioner does one Jacobi sweep fewer in CG iteration I of step S
!   --swap R S I        rank R updates the search direction before it computes the new r.z
!                       (cg_mod::update_direction before comm_mod::global_dot) in CG iteration I of step S
!   --extra-call R S I  rank R calls ops_mod::check_orthogonality once in CG iteration I of step S
!   --skip-from R S     rank R stops applying the boundary source (ops_mod::apply_source) from step S on
!   --hang R S I        rank R waits in MPI_Recv for a message nobody sends in CG iteration I of step S
!   --cg-short R S      rank R's CG runs one iteration fewer in step S (its neighbours are left waiting)
module params_mod
  implicit none
  integer, parameter :: nloc = 64, nsteps = 10, ncg = 8, nsweep = 4
  integer :: bug_kind = 0, bug_rank = -1, bug_step = -1, bug_iter = -1
  integer, parameter :: B_SKIP = 1, B_SHORT = 2, B_SWAP = 3, B_EXTRA = 4, B_FROM = 5, B_HANG = 6, B_CGSHORT = 7
  integer :: myrank = 0, nprocs = 1
contains
  subroutine parse_args()
    integer :: i, n
    character(len=32) :: a, b
    n = command_argument_count()
    i = 1
    do while (i <= n)
      call get_command_argument(i, a)
      select case (trim(a))
      case ('--skip-call');  bug_kind = B_SKIP
      case ('--short-loop'); bug_kind = B_SHORT
      case ('--swap');       bug_kind = B_SWAP
      case ('--extra-call'); bug_kind = B_EXTRA
      case ('--skip-from');  bug_kind = B_FROM
      case ('--hang');       bug_kind = B_HANG
      case ('--cg-short');   bug_kind = B_CGSHORT
      case default
        print *, 'unknown argument ', trim(a)
        stop 2
      end select
      call get_command_argument(i + 1, b); read (b, *) bug_rank
      call get_command_argument(i + 2, b); read (b, *) bug_step
      i = i + 3
      if (bug_kind /= B_FROM .and. bug_kind /= B_CGSHORT) then
        call get_command_argument(i, b); read (b, *) bug_iter
        i = i + 1
      end if
    end do
  end subroutine parse_args

  logical function bug_at(kind, step, iter)
    integer, intent(in) :: kind, step, iter
    bug_at = bug_kind == kind .and. bug_rank == myrank .and. bug_step == step .and. bug_iter == iter
  end function bug_at
end module params_mod

module comm_mod
  use mpi
  use params_mod
  implicit none
contains
  subroutine exchange_halo(v)
    real(8), intent(inout) :: v(0:nloc + 1)
    integer :: left, right, ierr
    left = mod(myrank - 1 + nprocs, nprocs)
    right = mod(myrank + 1, nprocs)
    call MPI_Sendrecv(v(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, v(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(v(1), 1, MPI_DOUBLE_PRECISION, left, 2, v(nloc + 1), 1, MPI_DOUBLE_PRECISION, right, 2, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine exchange_halo

  real(8) function global_dot(a, b)
    real(8), intent(in) :: a(0:nloc + 1), b(0:nloc + 1)
    real(8) :: loc
    integer :: ierr
    loc = sum(a(1:nloc) * b(1:nloc))
    call MPI_Allreduce(loc, global_dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function global_dot

  subroutine wait_token()
    real(8) :: t
    integer :: ierr
    call MPI_Recv(t, 1, MPI_DOUBLE_PRECISION, mod(myrank + 1, nprocs), 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine wait_token
end module comm_mod

module ops_mod
  use params_mod
  use comm_mod
  implicit none
contains
  subroutine apply_operator(p, q)
    real(8), intent(inout) :: p(0:nloc + 1)
    real(8), intent(out) :: q(0:nloc + 1)
    integer :: i
    call exchange_halo(p)
    do i = 1, nloc
      q(i) = 2.2d0 * p(i) - p(i - 1) - p(i + 1)
    end do
  end subroutine apply_operator

  subroutine jacobi_sweep(r, z)
    real(8), intent(in) :: r(0:nloc + 1)
    real(8), intent(inout) :: z(0:nloc + 1)
    integer :: i
    do i = 2, nloc - 1
      z(i) = 0.5d0 * z(i) + (r(i) + 0.1d0 * (z(i - 1) + z(i + 1))) / 4.4d0
    end do
  end subroutine jacobi_sweep

  subroutine precondition(r, z, step, iter)
    real(8), intent(in) :: r(0:nloc + 1)
    real(8), intent(out) :: z(0:nloc + 1)
    integer, intent(in) :: step, iter
    integer :: k, n
    z = r / 2.2d0
    n = nsweep
    if (bug_at(B_SHORT, step, iter)) n = nsweep - 1
    do k = 1, n
      call jacobi_sweep(r, z)
    end do
  end subroutine precondition

  subroutine axpy(a, x, y)
    real(8), intent(in) :: a, x(0:nloc + 1)
    real(8), intent(inout) :: y(0:nloc + 1)
    y(1:nloc) = y(1:nloc) + a * x(1:nloc)
  end subroutine axpy

  subroutine check_orthogonality(r, p)
    real(8), intent(in) :: r(0:nloc + 1), p(0:nloc + 1)
    if (abs(sum(r(1:nloc) * p(1:nloc))) > 1d10) print *, 'lost orthogonality'
  end subroutine check_orthogonality

  subroutine apply_source(b, step)
    real(8), intent(inout) :: b(0:nloc + 1)
    integer, intent(in) :: step
    b(1) = b(1) + 0.01d0 * step
  end subroutine apply_source
end module ops_mod

module cg_mod
  use params_mod
  use comm_mod
  use ops_mod
  implicit none
contains
  subroutine cg_solve(b, x, step)
    real(8), intent(in) :: b(0:nloc + 1)
    real(8), intent(inout) :: x(0:nloc + 1)
    integer, intent(in) :: step
    real(8) :: r(0:nloc + 1), z(0:nloc + 1), p(0:nloc + 1), q(0:nloc + 1)
    real(8) :: rz, rz_new, alpha, beta, pq
    integer :: it, n
    beta = 0
    call apply_operator(x, q)
    r = 0; z = 0; p = 0
    r(1:nloc) = b(1:nloc) - q(1:nloc)
    call precondition(r, z, step, 0)
    p = z
    rz = global_dot(r, z)
    n = ncg
    if (bug_kind == B_CGSHORT .and. bug_rank == myrank .and. bug_step == step) n = ncg - 1
    do it = 1, n
      if (bug_at(B_HANG, step, it)) call wait_token()
      call apply_operator(p, q)
      pq = global_dot(p, q)
      alpha = rz / max(pq, 1d-30)
      call axpy(alpha, p, x)
      call axpy(-alpha, q, r)
      if (.not. bug_at(B_SKIP, step, it)) then
        call precondition(r, z, step, it)
      end if
      if (bug_at(B_EXTRA, step, it)) call check_orthogonality(r, p)
      if (bug_at(B_SWAP, step, it)) then
        call update_direction(z, beta, p)
        rz_new = global_dot(r, z)
        beta = rz_new / max(rz, 1d-30)
        rz = rz_new
      else
        rz_new = global_dot(r, z)
        beta = rz_new / max(rz, 1d-30)
        rz = rz_new
        call update_direction(z, beta, p)
      end if
    end do
  end subroutine cg_solve

  subroutine update_direction(z, beta, p)
    real(8), intent(in) :: z(0:nloc + 1), beta
    real(8), intent(inout) :: p(0:nloc + 1)
    p(1:nloc) = z(1:nloc) + beta * p(1:nloc)
  end subroutine update_direction
end module cg_mod

module diag_mod
  use params_mod
  use comm_mod
  implicit none
contains
  subroutine report(x, step)
    real(8), intent(in) :: x(0:nloc + 1)
    integer, intent(in) :: step
    real(8) :: m, gm
    integer :: ierr
    m = maxval(abs(x(1:nloc)))
    call MPI_Allreduce(m, gm, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (myrank == 0) write (*, '(a,i3,a,es12.4)') 'step', step, ' max', gm
  end subroutine report
end module diag_mod

program poisson
  use mpi
  use params_mod
  use comm_mod
  use ops_mod
  use cg_mod
  use diag_mod
  implicit none
  real(8) :: u(0:nloc + 1), b(0:nloc + 1)
  integer :: step, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, myrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call parse_args()
  u = 1d0 + myrank
  do step = 1, nsteps
    call time_step(step)
  end do
  call MPI_Finalize(ierr)
contains
  subroutine time_step(step)
    integer, intent(in) :: step
    b = u
    if (.not. (bug_kind == B_FROM .and. bug_rank == myrank .and. step >= bug_step)) call apply_source(b, step)
    call cg_solve(b, u, step)
    if (mod(step, 3) == 0) call report(u, step)
  end subroutine time_step
end program poisson
